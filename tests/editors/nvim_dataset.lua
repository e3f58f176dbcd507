-- Headless Neovim 0.11+ with the docs' vim.lsp.config block: a dataset graded
-- (rubric-lsp.gradeExamples), then the criterion's "confusion matrix" and "n disagreeing item(s)"
-- lenses run as a user does (vim.lsp.codelens.run() on the line, the lens picked from the
-- vim.ui.select list); records the lens titles and what vim.notify showed.
-- Environment: RUBRIC_SNIPPET (the config block), RUBRIC_FILE (the dataset), RUBRIC_LINE (1-based
-- line of the criterion's lenses), RUBRIC_JUDGE (judge base URL), RUBRIC_OUT (JSON result).
local result = { errors = {}, notes = {}, lenses = {} }
local notify = vim.notify
vim.notify = function(message, level)
  table.insert(result.notes, message)
  return notify(message, level)
end
local wanted
vim.ui.select = function(items, opts, on_choice)
  for _, item in ipairs(items) do
    if opts.format_item(item):find(wanted, 1, true) then return on_choice(item) end
  end
  on_choice(nil)
end
local ok, err = pcall(function()
  dofile(os.getenv("RUBRIC_SNIPPET"))
  vim.lsp.config("rubric_lsp", {
    settings = { rubric = { judge = { model = "openai/judge", apiBase = os.getenv("RUBRIC_JUDGE") } } },
  })
  vim.cmd("filetype plugin indent on")
  vim.cmd("edit " .. vim.fn.fnameescape(os.getenv("RUBRIC_FILE")))
  local bufnr = vim.api.nvim_get_current_buf()
  local client
  vim.wait(45000, function()
    client = vim.lsp.get_clients({ bufnr = bufnr, name = "rubric_lsp" })[1]
    return client ~= nil and client.initialized
  end, 50)
  local params = { command = "rubric-lsp.gradeExamples", arguments = { { uri = vim.uri_from_bufnr(bufnr) } } }
  local answer = client:request_sync("workspace/executeCommand", params, 120000, bufnr)
  if answer == nil or answer.err then error("gradeExamples: " .. vim.inspect(answer)) end
  vim.lsp.codelens.refresh({ bufnr = bufnr })
  vim.wait(20000, function() return #vim.lsp.codelens.get(bufnr) > 2 end, 50)
  for _, lens in ipairs(vim.lsp.codelens.get(bufnr)) do
    table.insert(result.lenses, lens.command and lens.command.title or "")
  end
  vim.api.nvim_win_set_cursor(0, { tonumber(os.getenv("RUBRIC_LINE")), 0 })
  for _, title in ipairs({ "confusion matrix", "disagreeing" }) do
    wanted = title
    local before = #result.notes
    vim.lsp.codelens.run()
    vim.wait(20000, function() return #result.notes > before end, 50)
  end
end)
if not ok then table.insert(result.errors, tostring(err)) end
vim.fn.writefile({ vim.fn.json_encode(result) }, os.getenv("RUBRIC_OUT"))
vim.cmd("qall!")
