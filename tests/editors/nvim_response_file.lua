-- Headless Neovim 0.11+ with the docs' vim.lsp.config block: a promptfoo test graded with no response yet.
-- The cursor at column 0 of the test's first line ("  - description: …"), the "Grade this test" code action:
-- the server opens a response file (window/showDocument: Neovim shows it in the window); the user writes the
-- response there, saves, goes back and runs the same action again: the test is graded against the file.
-- Environment: RUBRIC_SNIPPET (the config block), RUBRIC_FILE (the config), RUBRIC_LINE (1-based line of the
-- test's first line), RUBRIC_RESPONSE_TEXT, RUBRIC_JUDGE (judge base URL), RUBRIC_OUT (JSON result).
local result = { errors = {}, notes = {}, actions = {} }
local notify = vim.notify
vim.notify = function(message, level)
  table.insert(result.notes, message)
  return notify(message, level)
end

-- "Grade this …" code actions at the cursor (the titles, and the one run), as vim.lsp.buf.code_action() runs one
local function grade_action()
  local titles = {}
  vim.lsp.buf.code_action({
    filter = function(action)
      table.insert(titles, action.title)
      return action.title:find("^Grade this") ~= nil
    end,
    apply = true,
  })
  return titles
end

local ok, err = pcall(function()
  dofile(os.getenv("RUBRIC_SNIPPET"))
  vim.lsp.config("rubric_lsp", {
    settings = { rubric = { judge = { model = "openai/judge", apiBase = os.getenv("RUBRIC_JUDGE") } } },
  })
  vim.cmd("filetype plugin indent on")
  local config = os.getenv("RUBRIC_FILE")
  vim.cmd("edit " .. vim.fn.fnameescape(config))
  local bufnr = vim.api.nvim_get_current_buf()
  vim.wait(45000, function()
    local client = vim.lsp.get_clients({ bufnr = bufnr, name = "rubric_lsp" })[1]
    return client ~= nil and client.initialized
  end, 50)
  local line = tonumber(os.getenv("RUBRIC_LINE"))

  -- 1. no response yet: the server opens a response file in this window
  vim.api.nvim_win_set_cursor(0, { line, 0 })
  result.actions = grade_action()
  vim.wait(120000, function() return vim.api.nvim_get_current_buf() ~= bufnr end, 100)
  result.opened = vim.api.nvim_buf_get_name(0)
  if result.opened == vim.api.nvim_buf_get_name(bufnr) then error("no response file was opened") end

  -- 2. the user writes the response there and saves it
  vim.api.nvim_buf_set_lines(0, 0, -1, false, { os.getenv("RUBRIC_RESPONSE_TEXT") })
  vim.cmd("write")

  -- 3. back in the config, the same action on the same spot: graded against the file
  vim.cmd("buffer " .. bufnr)
  vim.api.nvim_win_set_cursor(0, { line, 0 })
  grade_action()
  local client = vim.lsp.get_clients({ bufnr = bufnr, name = "rubric_lsp" })[1]
  vim.wait(120000, function()
    local answer = client:request_sync("textDocument/codeLens", { textDocument = { uri = vim.uri_from_bufnr(bufnr) } }, 30000, bufnr)
    for _, lens in ipairs((answer and answer.result) or {}) do
      if lens.command and lens.command.title:find("Graded", 1, true) then
        result.graded = lens.command.title
        return true
      end
    end
    return false
  end, 200)
end)
if not ok then table.insert(result.errors, tostring(err)) end
vim.fn.writefile({ vim.fn.json_encode(result) }, os.getenv("RUBRIC_OUT"))
vim.cmd("qall!")
