-- Headless Neovim 0.11+ with the docs' vim.lsp.config block and its :RubricGrade command: a promptfoo
-- test graded against a response held in a file, as a user without the VS Code extension does.
-- Environment: RUBRIC_SNIPPET (the config block), RUBRIC_GRADE_SNIPPET (the :RubricGrade block),
-- RUBRIC_FILE (the config), RUBRIC_LINE (1-based line to put the cursor on), RUBRIC_RESPONSE (the
-- response file), RUBRIC_JUDGE (judge base URL), RUBRIC_OUT (JSON result).
local result = { errors = {}, notes = {} }
local notify = vim.notify
vim.notify = function(message, level)
  table.insert(result.notes, message)
  return notify(message, level)
end
local ok, err = pcall(function()
  dofile(os.getenv("RUBRIC_SNIPPET"))
  -- the documented block, pointed at the test's judge (vim.lsp.config merges)
  vim.lsp.config("rubric_lsp", {
    settings = { rubric = { judge = { model = "openai/judge", apiBase = os.getenv("RUBRIC_JUDGE") } } },
  })
  dofile(os.getenv("RUBRIC_GRADE_SNIPPET"))
  vim.cmd("filetype plugin indent on")
  vim.cmd("edit " .. vim.fn.fnameescape(os.getenv("RUBRIC_FILE")))
  local bufnr = vim.api.nvim_get_current_buf()
  vim.wait(45000, function()
    local client = vim.lsp.get_clients({ bufnr = bufnr, name = "rubric_lsp" })[1]
    return client ~= nil and client.initialized
  end, 50)
  vim.api.nvim_win_set_cursor(0, { tonumber(os.getenv("RUBRIC_LINE")), 6 })
  vim.cmd("RubricGrade " .. vim.fn.fnameescape(os.getenv("RUBRIC_RESPONSE")))
  vim.wait(120000, function()
    for _, note in ipairs(result.notes) do
      if note:find("rubric-lsp: ", 1, true) then return true end
    end
    return false
  end, 100)
end)
if not ok then table.insert(result.errors, tostring(err)) end
vim.fn.writefile({ vim.fn.json_encode(result) }, os.getenv("RUBRIC_OUT"))
vim.cmd("qall!")
