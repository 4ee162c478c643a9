/** `tiller --help` text. Kept free of imports so `--help` stays instant. */
export const HELP_TEXT = `tiller — a coding agent you can steer while it works

Usage:
  tiller [options] [prompt...]        interactive terminal UI (default when stdin is a terminal)
  tiller -p "prompt"                  print mode: answer once, print the final text
  tiller --mode json "prompt"         every event as one JSON line
  tiller --mode rpc                   JSON-lines commands on stdin, responses and events on stdout
  tiller gateway|agent [args...]      run tiller-gateway / tiller-agent (from @tiller/gateway)
  tiller mcp list [--json]            MCP servers: state, tools, errors
  tiller mcp serve [args...]          run tiller-mcp (from @tiller/gateway): a gateway as an MCP server

Options:
  -p, --print                     print the final answer and exit
      --mode text|json|rpc        output mode (text is the default)
  -m, --model <id>                model id, or provider/id
      --provider <name>           provider of the model
      --api-key <key>             API key for this run (not saved)
      --thinking <level>          off, minimal, low, medium, high, xhigh
  -c, --continue                  continue the most recent session in this folder
  -r, --resume                    pick a session to resume (interactive)
      --session <path|id>         open a specific session
      --no-session                keep nothing on disk
      --tools <a,b,...>           only these tools (read, bash, edit, write, grep, find, ls)
      --no-tools                  no tools at all (MCP servers are not started either)
      --trust-mcp                 trust this project's MCP servers (.mcp.json, .tiller/settings.json)
      --system-prompt <text>      replace the base system prompt
      --append-system-prompt <t>  append text to the system prompt
  -e, --extension <path>          load an extension (repeatable)
      --<flag> [value]            a flag an extension registers (its getFlag reads it)
      --list-models [search]      list known models and exit
  -v, --version                   print the version and exit
  -h, --help                      this help

Interactive keys:
  Enter        send; while the agent works, steer it (delivered at the next tool boundary)
  Alt+Enter    queue a follow-up (delivered when the agent would stop)
  Esc          abort the current run
  /model, /thinking, /compact, /new, /resume, /fork, /tree, /mcp, /help, /quit

Files:
  $TILLER_HOME (default ~/.tiller): models.json, settings.json, auth.json, sessions/,
    skills/, prompts/, extensions/, AGENTS.md
  <project>/.tiller/: skills/, prompts/, extensions/
  <project>/.mcp.json and "mcpServers" in settings.json: MCP servers (Claude Code's format)
  AGENTS.md / CLAUDE.md in the folder and its parents are added to the system prompt.

With no provider configured (no API key, no models.json), tiller runs on the offline model.
`;
