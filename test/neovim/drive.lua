-- Drives probe-lint's language server from a real Neovim (headless), as a user would: open a
-- manifest, wait for diagnostics, edit, apply a code action, hover, save. What Neovim saw is
-- written as JSON to $PROBE_LINT_OUT for the test to judge; a step that cannot finish writes why.
local out = {}
local function finish(failure)
  out.failure = failure
  local file = io.open(os.getenv('PROBE_LINT_OUT'), 'w')
  file:write(vim.fn.json_encode(out))
  file:close()
  vim.cmd('qa!')
end

local ok, err = pcall(function()
  -- The README's configuration, as a user's init.lua; the file type set as filetype detection would.
  dofile(os.getenv('PROBE_LINT_INIT'))
  vim.cmd('edit ' .. vim.fn.fnameescape(os.getenv('PROBE_LINT_FILE')))
  local buffer = vim.api.nvim_get_current_buf()
  vim.bo[buffer].filetype = 'yaml'
  assert(vim.wait(10000, function() return #vim.lsp.buf_get_clients(buffer) > 0 end, 20), 'the README configuration attached no client')
  local client = next(vim.lsp.buf_get_clients(buffer))

  local function diagnostics()
    local seen = {}
    for _, d in ipairs(vim.diagnostic.get(buffer)) do
      local code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code)
      table.insert(seen, { line = d.lnum, col = d.col, code = code, severity = d.severity, message = d.message })
    end
    return seen
  end
  local function has(code)
    for _, d in ipairs(diagnostics()) do if d.code == code then return true end end
    return false
  end
  local function line_of(pattern)
    for number, text in ipairs(vim.api.nvim_buf_get_lines(buffer, 0, -1, false)) do
      if text:find(pattern, 1, true) then return number - 1, text end
    end
    error('no line with ' .. pattern)
  end

  assert(vim.wait(20000, function() return #diagnostics() > 0 end, 50), 'no diagnostics after opening')
  out.opened = diagnostics()

  -- Typing: the timeout that is not below the period goes down to 1 s.
  local row, text = line_of('timeoutSeconds: 10')
  vim.api.nvim_buf_set_lines(buffer, row, row + 1, false, { (text:gsub('timeoutSeconds: 10', 'timeoutSeconds: 1')) })
  assert(vim.wait(20000, function() return not has('timeout-not-below-period') end, 50), 'the edit was not linted')
  out.edited = diagnostics()

  -- A code action: the fix of readiness-termination-grace-period.
  local grace = line_of('terminationGracePeriodSeconds: 5')
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(buffer) },
    range = { start = { line = grace, character = 12 }, ['end'] = { line = grace, character = 12 } },
    context = { diagnostics = {} },
  }
  local replies = vim.lsp.buf_request_sync(buffer, 'textDocument/codeAction', params, 10000)
  out.actions = {}
  local chosen
  for _, reply in pairs(replies or {}) do
    for _, action in ipairs(reply.result or {}) do
      table.insert(out.actions, action.title)
      if action.title == 'Fix readiness-termination-grace-period' then chosen = action end
    end
  end
  assert(chosen, 'no fix offered')
  vim.lsp.util.apply_workspace_edit(chosen.edit, 'utf-16')
  assert(vim.wait(20000, function() return not has('readiness-termination-grace-period') end, 50), 'the fixed text was not linted')
  out.fixed = diagnostics()

  -- Hover on the liveness probe.
  local liveness = line_of('livenessProbe:')
  local hover = vim.lsp.buf_request_sync(buffer, 'textDocument/hover', {
    textDocument = { uri = vim.uri_from_bufnr(buffer) },
    position = { line = liveness, character = 14 },
  }, 10000)
  for _, reply in pairs(hover or {}) do
    if reply.result then out.hover = reply.result.contents.value end
  end

  vim.cmd('write')
  out.saved = table.concat(vim.api.nvim_buf_get_lines(buffer, 0, -1, false), '\n') .. '\n'
  vim.lsp.stop_client(client)
end)
finish(not ok and tostring(err) or nil)
