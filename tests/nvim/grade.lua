-- Headless Neovim (0.7+) grading a promptfoo config from a code lens and a code action.
-- Environment: RUBRIC_NVIM_CONFIG (the promptfoo config), RUBRIC_NVIM_REPLY (a text file holding a
-- response), RUBRIC_NVIM_OUT (JSON result path), RUBRIC_NVIM_PYTHON, RUBRIC_NVIM_JUDGE (judge base URL).
local config = os.getenv("RUBRIC_NVIM_CONFIG")
local reply = os.getenv("RUBRIC_NVIM_REPLY")
local out = os.getenv("RUBRIC_NVIM_OUT")
local python = os.getenv("RUBRIC_NVIM_PYTHON") or "python3"
local result = { errors = {}, steps = {} }

local function finish()
  vim.fn.writefile({ vim.fn.json_encode(result) }, out)
  vim.cmd("qall!")
end

local function sync(bufnr, method, params, timeout)
  -- a bound against a hang, not a speed test: the first grading loads the grading engine (slow on a busy machine)
  local responses, err = vim.lsp.buf_request_sync(bufnr, method, params, timeout or 180000)
  if err then table.insert(result.errors, method .. ": " .. tostring(err)) end
  for _, response in pairs(responses or {}) do
    if response.err then table.insert(result.errors, method .. ": " .. vim.inspect(response.err)) end
    return response.result
  end
end

local function lens_titles(bufnr)
  local titles = {}
  for _, lens in ipairs(sync(bufnr, "textDocument/codeLens", { textDocument = { uri = vim.uri_from_bufnr(bufnr) } }) or {}) do
    table.insert(titles, { line = lens.range.start.line, title = lens.command and lens.command.title or "" })
  end
  return titles
end

local function hint_labels(bufnr)
  local labels = {}
  local params = { textDocument = { uri = vim.uri_from_bufnr(bufnr) },
    range = { start = { line = 0, character = 0 }, ["end"] = { line = 1000, character = 0 } } }
  for _, hint in ipairs(sync(bufnr, "textDocument/inlayHint", params) or {}) do
    table.insert(labels, { line = hint.position.line, label = hint.label })
  end
  return labels
end

local ok, err = pcall(function()
  local client_id = vim.lsp.start_client({
    name = "rubric-lsp",
    cmd = { python, "-m", "rubric_lsp", "serve" },
    root_dir = vim.fn.fnamemodify(config, ":h"),
    init_options = { rubric = { judge = { model = "openai/judge", apiBase = os.getenv("RUBRIC_NVIM_JUDGE") } } },
    on_error = function(code) table.insert(result.errors, "client error " .. tostring(code)) end,
  })

  -- 1. A response in a text file, graded against test 1 with no "uri": the buffer just opened.
  vim.cmd("edit " .. vim.fn.fnameescape(reply))
  local reply_buf = vim.api.nvim_get_current_buf()
  vim.lsp.buf_attach_client(reply_buf, client_id)
  vim.wait(10000, function() return vim.lsp.get_client_by_id(client_id).initialized end, 50)
  local graded = sync(reply_buf, "workspace/executeCommand", {
    command = "rubric-lsp.gradeSelection", arguments = { { target = { uri = vim.uri_from_fname(config), test = 1 } } } })
  result.steps.target = graded and graded.passed

  -- 2. The config: run the "▶ Grade" lens of test 2 as a user would (cursor on it, codelens.run()).
  vim.cmd("edit " .. vim.fn.fnameescape(config))
  local bufnr = vim.api.nvim_get_current_buf()
  vim.lsp.buf_attach_client(bufnr, client_id)
  vim.lsp.codelens.refresh()
  local lens_line = nil
  vim.wait(15000, function()
    for _, lens in ipairs(vim.lsp.codelens.get(bufnr)) do
      if lens.command and lens.command.title:find("polite refusal", 1, true) then lens_line = lens.range.start.line end
    end
    return lens_line ~= nil
  end, 100)
  result.steps.lens_line = lens_line
  if lens_line ~= nil then
    local before = {}
    for _, lens in ipairs(lens_titles(bufnr)) do before[lens.title] = true end
    vim.api.nvim_win_set_cursor(0, { lens_line + 1, 0 })
    vim.lsp.codelens.run()
    vim.wait(30000, function() -- until a new "Graded: …" lens shows
      for _, lens in ipairs(lens_titles(bufnr)) do
        if lens.title:find("Graded", 1, true) and not before[lens.title] then return true end
      end
      return false
    end, 200)
  end
  result.after_lens = { lenses = lens_titles(bufnr), hints = hint_labels(bufnr) }

  -- 3. The "Grade this test" code action on test 1, its command run through the client.
  local line = 5 -- inside test 1
  local params = { textDocument = { uri = vim.uri_from_bufnr(bufnr) },
    range = { start = { line = line, character = 6 }, ["end"] = { line = line, character = 6 } },
    context = { diagnostics = {} } }
  result.actions = {}
  for _, action in ipairs(sync(bufnr, "textDocument/codeAction", params) or {}) do
    table.insert(result.actions, action.title)
    if action.title:find("Grade this test", 1, true) then
      -- a bare Command (as the server offers it) or a CodeAction carrying one
      local command = type(action.command) == "table" and action.command or action
      local answer = sync(bufnr, "workspace/executeCommand", command)
      result.steps.action = answer and answer.units
    end
  end
  result.after_action = { lenses = lens_titles(bufnr), hints = hint_labels(bufnr) }
  vim.lsp.stop_client(client_id)
end)
if not ok then table.insert(result.errors, tostring(err)) end
finish()
