-- Headless Neovim (0.7+) as a real LSP client of rubric-lsp.
-- Environment: RUBRIC_NVIM_FILE (file to open), RUBRIC_NVIM_OUT (JSON result path),
-- RUBRIC_NVIM_PYTHON (the Python that has rubric_lsp installed).
local file = os.getenv("RUBRIC_NVIM_FILE")
local out = os.getenv("RUBRIC_NVIM_OUT")
local python = os.getenv("RUBRIC_NVIM_PYTHON") or "python3"
local result = { diagnostics = {}, fixed_text = nil, errors = {} }

local function finish()
  vim.fn.writefile({ vim.fn.json_encode(result) }, out)
  vim.cmd("qall!")
end

local ok, err = pcall(function()
  local client_id = vim.lsp.start_client({
    name = "rubric-lsp",
    cmd = { python, "-m", "rubric_lsp", "serve" },
    root_dir = vim.fn.fnamemodify(file, ":h"),
    on_error = function(code) table.insert(result.errors, "client error " .. tostring(code)) end,
  })
  vim.cmd("edit " .. vim.fn.fnameescape(file))
  local bufnr = vim.api.nvim_get_current_buf()
  vim.lsp.buf_attach_client(bufnr, client_id)

  vim.wait(20000, function() return #vim.diagnostic.get(bufnr) > 0 end, 50)
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    local lsp = (d.user_data or {}).lsp or {}
    table.insert(result.diagnostics, {
      lnum = d.lnum, col = d.col, end_lnum = d.end_lnum, end_col = d.end_col,
      severity = d.severity, message = d.message, source = d.source, code = lsp.code or d.code,
    })
  end

  -- Ask for code actions on the first finding and apply its quick fix, as a user would.
  local first = nil
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    local lsp = (d.user_data or {}).lsp or {}
    if (lsp.code or d.code) == os.getenv("RUBRIC_NVIM_FIX_CODE") then first = d end
  end
  result.actions = {}
  if first ~= nil then
    local params = {
      textDocument = { uri = vim.uri_from_bufnr(bufnr) },
      range = { start = { line = first.lnum, character = first.col }, ["end"] = { line = first.end_lnum, character = first.end_col } },
      context = { diagnostics = { {
        range = { start = { line = first.lnum, character = first.col }, ["end"] = { line = first.end_lnum, character = first.end_col } },
        message = first.message, severity = first.severity, source = first.source,
        code = ((first.user_data or {}).lsp or {}).code,
      } } },
    }
    local responses, request_err = vim.lsp.buf_request_sync(bufnr, "textDocument/codeAction", params, 10000)
    if request_err then table.insert(result.errors, "code action request: " .. tostring(request_err)) end
    responses = responses or {}
    for _, response in pairs(responses) do
      if response.err then table.insert(result.errors, vim.inspect(response.err)) end
      for _, action in ipairs(response.result or {}) do
        table.insert(result.actions, action.title)
        if action.kind == "quickfix" and action.isPreferred and action.edit then
          vim.lsp.util.apply_workspace_edit(action.edit, "utf-16")
          result.fixed_text = table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), "\n")
          break
        end
      end
    end
  end
  vim.lsp.stop_client(client_id)
end)
if not ok then table.insert(result.errors, tostring(err)) end
finish()
