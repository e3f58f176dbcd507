-- Runs a Neovim configuration snippet from docs/editors.md, opens a file and records the
-- diagnostics the language server sends. Environment: RUBRIC_SNIPPET (the snippet),
-- RUBRIC_FILE (file to open), RUBRIC_OUT (JSON result).
local result = { diagnostics = {}, errors = {}, clients = {} }
local ok, err = pcall(dofile, os.getenv("RUBRIC_SNIPPET"))
if not ok then table.insert(result.errors, "snippet: " .. tostring(err)) end
ok, err = pcall(function()
  -- a user opens files after start-up, when filetype detection (which fires FileType) is on
  vim.cmd("filetype plugin indent on")
  vim.cmd("edit " .. vim.fn.fnameescape(os.getenv("RUBRIC_FILE")))
  local bufnr = vim.api.nvim_get_current_buf()
  vim.wait(45000, function() return #vim.diagnostic.get(bufnr) > 0 end, 50)
  for _, client in ipairs(vim.lsp.get_clients({ bufnr = bufnr })) do table.insert(result.clients, client.name) end
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    local lsp = (d.user_data or {}).lsp or {}
    table.insert(result.diagnostics, { lnum = d.lnum, col = d.col, source = d.source, code = lsp.code or d.code })
  end
end)
if not ok then table.insert(result.errors, tostring(err)) end
vim.fn.writefile({ vim.fn.json_encode(result) }, os.getenv("RUBRIC_OUT"))
vim.cmd("qall!")
