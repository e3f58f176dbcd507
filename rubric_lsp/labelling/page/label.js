"use strict";
// The labelling page: one item at a time, every unit in its format's own words (the server's JSON says them),
// the grading's verdicts hidden until you answered. Everything shown is set as text, never as markup.
(() => {
  const params = new URLSearchParams(location.search);
  const token = params.get("token") || "";
  const framed = window.parent !== window; // inside the VS Code webview: it opens files for us
  let state = null;
  let focus = 0;
  let shownKey = null;
  let view = "label";
  let busy = false;
  const drafts = {}; // unit id -> a note typed before the unit was answered

  const $ = (id) => document.getElementById(id);
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (name === "text") node.textContent = value;
      else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
      else node.setAttribute(name, value === true ? "" : String(value));
    }
    for (const child of children) if (child) node.append(child);
    return node;
  }

  async function call(method, path, body) {
    const headers = { "X-Rubric-Token": token };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    const response = await fetch(path, {
      method, headers, cache: "no-store", credentials: "omit",
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const data = await response.json().catch(() => ({ error: `the labelling server answered ${response.status}` }));
    if (!response.ok) throw new Error(data.error || String(response.status));
    return data;
  }

  async function act(method, path, body) {
    if (busy) return null;
    busy = true;
    document.body.dataset.busy = "1";
    try {
      const data = await call(method, path, body);
      showError("");
      return data;
    } catch (error) {
      showError(error.message);
      return null;
    } finally {
      busy = false;
      delete document.body.dataset.busy;
    }
  }

  function showError(message) {
    const box = $("error");
    box.textContent = message;
    box.hidden = !message;
  }

  // -- the label view ---------------------------------------------------------------------------------
  function render(next) {
    if (!next) return;
    state = next;
    $("file").textContent = state.file;
    $("format").textContent = state.format;
    $("labeller").textContent = state.labeller;
    $("blind").textContent = state.blind ? "blind" : "verdicts shown";
    $("undo").disabled = !state.can_undo;
    const { done, total } = state.progress;
    $("bar").style.width = total ? `${(100 * done) / total}%` : "0";
    const progress = $("progress-text");
    progress.textContent = `${done} / ${total} labelled`;
    progress.dataset.done = done;
    progress.dataset.total = total;
    $("writes").textContent = `writes ${state.writes.join(" and ")}`;
    renderItem(state.item);
    renderQueue(state.queue);
    renderFigures(state.figures);
    document.body.dataset.ready = "1";
  }

  function renderItem(item) {
    const units = $("units");
    units.replaceChildren();
    $("inputs").replaceChildren();
    const section = $("item");
    if (!item) {
      section.dataset.key = "";
      $("item-title").textContent = state.progress.total ? "Everything is labelled." : "Nothing to label in this file.";
      $("response").textContent = "";
      shownKey = null;
      return;
    }
    if (item.key !== shownKey) {
      shownKey = item.key;
      focus = Math.max(0, item.units.findIndex((u) => !answered(u)));
    }
    section.dataset.key = item.key;
    $("item-title").textContent = `Item ${item.number}: ${item.title}`;
    for (const part of item.inputs) {
      $("inputs").append(el("div", { class: "input" }, el("h4", { text: part.name }), el("pre", { text: part.text })));
    }
    $("response").textContent = item.response;
    item.units.forEach((unit, index) => units.append(renderUnit(item, unit, index)));
    units.append(el("button", { id: "next", onclick: () => go(null), title: "Next item (Enter)", text: "Next item ▸" }));
  }

  function answered(unit) {
    return unit.label !== null || unit.held !== null;
  }

  function renderUnit(item, unit, index) {
    const mine = unit.label ? unit.label.word : null;
    const box = el("div", {
      class: `unit${index === focus ? " focus" : ""}${mine ? " done" : ""}`,
      "data-unit": unit.id,
      "data-answered": mine ? "1" : null,
      onclick: () => { focus = index; markFocus(); },
    });
    const open = el("a", { class: "open", href: unit.open.vscode, text: "open", title: `${unit.open.path}:${unit.open.line}` });
    open.addEventListener("click", (event) => openInEditor(event, unit.open));
    box.append(el("h3", {}, el("span", { text: `${unit.noun} ${unit.id}` }), open));
    box.append(el("p", { class: "asks", text: unit.title }));
    const choices = el("div", { class: "choices" });
    unit.choices.forEach((choice, n) => {
      choices.append(el("button", {
        class: `choice${mine === choice.word ? " chosen" : ""}`,
        "data-word": choice.word,
        "data-meaning": choice.meaning,
        title: choice.hint || choice.word,
        onclick: (event) => { event.stopPropagation(); choose(unit, choice.word); },
      }, el("span", { class: "k", text: n < 9 ? String(n + 1) : "" }), el("span", { text: choice.word })));
    });
    box.append(choices);
    const note = el("input", {
      class: "note", type: "text", placeholder: "note (n)", "data-note": unit.id, maxlength: 2000,
      value: unit.label ? unit.label.note : drafts[unit.id] || "",
    });
    note.addEventListener("keydown", (event) => {
      if (event.key === "Enter") { event.preventDefault(); saveNote(unit, note.value); note.blur(); }
      if (event.key === "Escape") note.blur();
      event.stopPropagation();
    });
    note.addEventListener("change", () => saveNote(unit, note.value));
    box.append(note);
    if (unit.held) {
      box.append(el("p", { class: "hidden-note", "data-held": unit.held.word,
        text: `the file holds ${unit.held.word}${unit.held.labeller ? ` (${unit.held.labeller})` : ""}: your answer is a second opinion` }));
    }
    for (const other of unit.others || []) {
      box.append(el("p", { class: "hidden-note", "data-other": other.word, text: `${other.labeller || "someone"} said ${other.word}${other.note ? `: ${other.note}` : ""}` }));
    }
    if (unit.judge) {
      const differs = mine !== null && unit.judge.verdict !== null && unit.judge.verdict !== mine;
      const said = unit.judge.verdict === null ? "the judgment failed" : `the judge said ${unit.judge.verdict}`;
      const votes = unit.judge.votes.length > 1 ? ` (votes: ${unit.judge.votes.join(", ")})` : "";
      const score = unit.judge.score !== null && unit.judge.threshold !== null ? ` · score ${unit.judge.score} against ${unit.judge.threshold}` : "";
      box.append(el("div", { class: `judge${differs ? " differs" : ""}`, "data-judge": unit.judge.verdict || "failed" },
        el("strong", { text: said + votes + score }), el("div", { class: "reason", text: unit.judge.reason || "" })));
    } else if (unit.judged) {
      box.append(el("p", { class: "hidden-note muted", "data-judge-hidden": "1", text: "the judge's verdict shows once you answer" }));
    }
    return box;
  }

  function markFocus() {
    document.querySelectorAll(".unit").forEach((node, index) => node.classList.toggle("focus", index === focus));
  }

  async function choose(unit, word) {
    const note = unit.label ? unit.label.note : drafts[unit.id] || "";
    const next = await act("POST", "api/answer", { key: state.item.key, unit: unit.id, word, note });
    if (!next) return;
    delete drafts[unit.id];
    const units = next.item ? next.item.units : [];
    const after = units.findIndex((u, index) => index > focus && !answered(u));
    if (after >= 0) focus = after;
    render(next);
  }

  async function saveNote(unit, text) {
    if (!unit.label) { drafts[unit.id] = text; return; }
    if (text === unit.label.note) return;
    render(await act("POST", "api/answer", { key: state.item.key, unit: unit.id, word: unit.label.word, note: text }));
  }

  async function go(key) {
    render(await act("POST", "api/go", { key: key || "" }));
  }

  async function undo() {
    const next = await act("POST", "api/undo", {});
    if (!next) return;
    shownKey = null; // the undone item comes back with its first unanswered unit highlighted
    render(next);
    if (view === "review") showReview();
  }

  function renderQueue(queue) {
    const list = $("queue");
    list.replaceChildren();
    for (const entry of queue) {
      const item = el("li", { "data-queue": entry.key, onclick: () => go(entry.key) }, el("span", { text: `${entry.number}. ${entry.title}` }));
      for (const why of entry.why) item.append(el("span", { class: "why", text: why }));
      list.append(item);
    }
  }

  function renderFigures(figures) {
    const list = $("figures");
    list.replaceChildren();
    for (const figure of figures) {
      const item = el("li", { "data-figure": figure.unit, text: figure.text });
      if (figure.people) {
        for (const pair of figure.people.pairs) {
          const share = pair.agreement.value === null ? "–" : pair.agreement.value.toFixed(2);
          item.append(el("div", { class: "muted", "data-people": pair.labellers.join(" "),
            text: `${pair.labellers.join(" and ")} agree on ${share} of ${pair.agreement.n}` }));
        }
      }
      list.append(item);
    }
  }

  // -- opening a unit in the editor ---------------------------------------------------------------------
  function openInEditor(event, where) {
    if (!framed) return; // the vscode:// link opens VS Code; a file:// one is in its title
    event.preventDefault();
    window.parent.postMessage({ type: "rubric-label-open", path: where.path, line: where.line, column: where.column }, "*");
  }

  // -- the review view ----------------------------------------------------------------------------------
  async function showReview() {
    const data = await act("GET", "api/review");
    if (!data) return;
    $("undo").disabled = !data.can_undo;
    const body = $("review").tBodies[0];
    body.replaceChildren();
    if (!data.disagreements.length) {
      body.append(el("tr", {}, el("td", { colspan: 5, text: "No disagreements with the judge's verdicts the page knows." })));
    }
    for (const row of data.disagreements) {
      const actions = el("td", {});
      actions.append(el("button", { "data-keep": row.unit.id, text: "Keep (the judge erred)", onclick: () => review("api/keep", row) }));
      for (const choice of row.unit.choices) {
        if (choice.word === row.label.word) continue;
        actions.append(el("button", { "data-change": choice.word, text: `Change to ${choice.word}`,
          onclick: () => review("api/change", row, choice.word) }));
      }
      const open = el("a", { class: "open", href: row.unit.open.vscode, text: "open the wording" });
      open.addEventListener("click", (event) => openInEditor(event, row.unit.open));
      actions.append(open);
      body.append(el("tr", { class: row.kept ? "kept" : "", "data-review": `${row.key} ${row.unit.id}` },
        el("td", {}, el("strong", { text: `${row.number}. ${row.title}` }), el("pre", { text: row.response })),
        el("td", {}, el("strong", { text: row.unit.id }), el("div", { text: row.unit.title })),
        el("td", {}, el("strong", { text: row.label.word }), el("div", { class: "reason", text: row.label.note })),
        el("td", {}, el("strong", { text: row.judge.verdict }), el("div", { class: "reason", text: row.judge.reason })),
        actions));
    }
  }

  async function review(path, row, word) {
    const done = await act("POST", path, { key: row.key, unit: row.unit.id, word: word || "" });
    if (done) { render(done); showReview(); }
  }

  function show(which) {
    view = which;
    $("view-label").hidden = which !== "label";
    $("view-review").hidden = which !== "review";
    $("tab-label").classList.toggle("on", which === "label");
    $("tab-review").classList.toggle("on", which === "review");
    if (which === "review") showReview();
  }

  // -- keys ---------------------------------------------------------------------------------------------
  document.addEventListener("keydown", (event) => {
    if (event.target instanceof HTMLInputElement) return;
    if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === "z") { event.preventDefault(); undo(); return; }
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.key === "r") return show("review");
    if (event.key === "l") return show("label");
    if (event.key === "u") return undo();
    if (view !== "label" || !state || !state.item) return;
    const units = state.item.units;
    if (/^[1-9]$/.test(event.key)) {
      const unit = units[focus];
      const choice = unit && unit.choices[Number(event.key) - 1];
      if (choice) choose(unit, choice.word);
    } else if (event.key === "j" || event.key === "ArrowDown") {
      focus = Math.min(units.length - 1, focus + 1); markFocus(); event.preventDefault();
    } else if (event.key === "k" || event.key === "ArrowUp") {
      focus = Math.max(0, focus - 1); markFocus(); event.preventDefault();
    } else if (event.key === "n") {
      const note = document.querySelector(`[data-note="${CSS.escape(units[focus].id)}"]`);
      if (note) { note.focus(); event.preventDefault(); }
    } else if (event.key === "Enter") {
      go(null);
    }
  });
  $("undo").addEventListener("click", undo);
  document.querySelectorAll(".tab").forEach((tab) => tab.addEventListener("click", () => show(tab.dataset.view)));
  act("GET", "api/state").then((first) => {
    render(first);
    const wanted = params.get("item"); // the editor's "Label this item" opens the page on it
    if (first && wanted && (!first.item || first.item.key !== wanted)) go(wanted);
  });
})();
