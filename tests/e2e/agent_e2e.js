#!/usr/bin/env node
// tests/e2e/agent_e2e.js: one real agent CLI (Claude Code or Codex) in a real
// signaltty pane, driven and checked through the signaltty CLI alone.
// Runs in: a network namespace with only `lo` (run_agent_e2e.sh puts it
// there), with its own broker, fake model API and temporary XDG dirs/HOME.
// Never: reaches past loopback, sleeps instead of waiting on a state, or
// signals a process it did not start.
//
//   node agent_e2e.js --bin-dir DIR --agent claude|codex --agent-bin FILE
//                     --agent-version VERSION --path hooks|screen
//
// The conversation, the same for both paths:
//   turn 1  "say hello"               -> working -> done, "Hello from fake" on screen
//   turn 2  "please write hi to x"    -> working -> blocked on the shell call
//           the permission is granted -> the call runs (x holds "hi") -> done
// Path `hooks`: signaltty's hooks are installed (`integration install`) and
// the permission is answered with `decision answer ... once`, which goes back
// to the agent as its native verdict. Path `screen`: nothing is installed and
// the agent is started through env(1), so the broker's launch setup (keyed on
// the program's name) stays out too; screen rules and /proc alone must show
// the states, and the permission is granted with the key the TUI expects.
'use strict';

const {spawn, spawnSync} = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

// How long each stage may take. The fake model answers within REPLY_DELAY_MS
// plus a few milliseconds; the rest is the agents' own start-up and
// rendering on a shared two-core machine.
const FAKE_PORT_TIMEOUT_MS = 10000;
const BROKER_READY_TIMEOUT_MS = 15000;
const AGENT_READY_TIMEOUT_S = 90;
const STATE_TIMEOUT_S = 60;
const SCREEN_TEXT_TIMEOUT_S = 30;
const SUBMIT_STALL_TIMEOUT_S = 30;
const CLI_GRACE_S = 15;
const POLL_MS = 50;
// The fake holds each main-loop reply back this long, so that a working
// state lasts several 500 ms screen-rule ticks.
const REPLY_DELAY_MS = 2000;
const TEARDOWN_TIMEOUT_MS = 10000;
const EVENTS_CATCH_UP_MS = 5000;
const PANE_COLS = 120;
const PANE_ROWS = 40;

const PROMPT_HELLO = 'say hello';
const PROMPT_WRITE = 'please write hi to x';
const REPLY_HELLO = 'Hello from fake';
const REPLY_DONE = 'Done: x now contains hi.';
const TOOL_FILE = 'x';
const TOOL_FILE_TEXT = 'hi\n';

// Without hooks, lifecycle changes come from screen rules: `screen`, or
// `osc` for a rule that reads the title.
const SCREEN_SOURCES = ['screen', 'osc'];

class Failure extends Error {}

function parseArgs(argv) {
  const out = {};
  for (let i = 0; i < argv.length; i += 2) {
    if (!argv[i].startsWith('--') || i + 1 >= argv.length) throw new Failure(`bad argument ${argv[i]}`);
    out[argv[i].slice(2)] = argv[i + 1];
  }
  for (const key of ['bin-dir', 'agent', 'agent-bin', 'path']) {
    if (!out[key]) throw new Failure(`--${key} is required`);
  }
  if (!['claude', 'codex'].includes(out.agent)) throw new Failure(`unknown agent ${out.agent}`);
  if (!['hooks', 'screen'].includes(out.path)) throw new Failure(`unknown path ${out.path}`);
  return out;
}

function sleepMs(ms) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

// Polls `probe` until it returns a value other than undefined.
function pollUntil(what, timeoutMs, probe) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Failure(`timed out after ${timeoutMs} ms waiting for ${what}`);
    sleepMs(POLL_MS);
  }
}

// Whether a child still runs. The event loop is blocked while the driver
// polls, so a child's exit is read from /proc rather than from 'exit'.
function alive(child) {
  try {
    const stat = fs.readFileSync(`/proc/${child.pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

function writeJson(file, value) {
  fs.mkdirSync(path.dirname(file), {recursive: true});
  fs.writeFileSync(file, JSON.stringify(value, null, 2) + '\n');
}

// ---- the two agents ------------------------------------------------------------

// What each agent needs: its fake, its environment and config files (first
// start already done, this folder trusted, no update checks), how it is
// started on each path, and the key its own permission prompt takes.
const AGENTS = {
  claude: {
    fake: 'fake_anthropic.js',
    env: (run) => ({
      CLAUDE_CONFIG_DIR: path.join(run.home, '.claude'),
      ANTHROPIC_BASE_URL: `http://127.0.0.1:${run.port}`,
      ANTHROPIC_AUTH_TOKEN: 'fake-token',
      DISABLE_AUTOUPDATER: '1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    }),
    configure(run) {
      const dir = path.join(run.home, '.claude');
      // Onboarding done, this folder trusted, and the notices of the
      // auto permission mode seen, so the TUI opens on its prompt in manual
      // mode, where a shell command asks first.
      writeJson(path.join(dir, '.claude.json'), {
        hasCompletedOnboarding: true,
        lastOnboardingVersion: run.agentVersion,
        theme: 'dark',
        autoUpdates: false,
        hasSeenAutoDefaultNotice: true,
        hasSeenAutoDefaultNudge: true,
        projects: {[run.work]: {hasTrustDialogAccepted: true, allowedTools: []}},
      });
      writeJson(path.join(dir, 'settings.json'), {permissions: {defaultMode: 'default'}});
    },
    argv: (bin, route) => (route === 'hooks' ? [bin] : ['/usr/bin/env', bin]),
    approveKey: '1',
    readyText: '? for shortcuts',
  },
  codex: {
    fake: 'fake_openai.js',
    env: (run) => ({CODEX_HOME: path.join(run.home, '.codex')}),
    configure(run) {
      const toml = [
        'model = "gpt-fake"',
        'model_provider = "fake"',
        'check_for_update_on_startup = false',
        '',
        '[model_providers.fake]',
        'name = "Fake Responses API"',
        `base_url = "http://127.0.0.1:${run.port}/v1"`,
        'wire_api = "responses"',
        'request_max_retries = 0',
        'stream_max_retries = 0',
        '',
        `[projects.${JSON.stringify(run.work)}]`,
        'trust_level = "trusted"',
        '',
      ].join('\n');
      fs.mkdirSync(path.join(run.home, '.codex'), {recursive: true});
      fs.writeFileSync(path.join(run.home, '.codex', 'config.toml'), toml);
    },
    // Hooks are trust-gated: the hooks path bypasses the trust review for
    // this run; the screen path has no hooks to trust. Started directly,
    // the broker adds --no-daemon itself; through env(1) we add it.
    argv: (bin, route) =>
      route === 'hooks' ? [bin, '--dangerously-bypass-hook-trust'] : ['/usr/bin/env', bin, '--no-daemon'],
    approveKey: 'y',
    readyText: '? for shortcuts',
  },
};

// ---- one run -------------------------------------------------------------------

class Run {
  constructor(options) {
    this.options = options;
    this.agent = AGENTS[options.agent];
    this.agentVersion = options['agent-version'] || '';
    this.bin = (name) => path.join(options['bin-dir'], name);
    this.root = fs.mkdtempSync(path.join(os.tmpdir(), 'signaltty-e2e-'));
    for (const dir of ['home', 'run', 'state', 'config', 'cache', 'work', 'logs']) {
      fs.mkdirSync(path.join(this.root, dir), {mode: 0o700});
    }
    this.home = path.join(this.root, 'home');
    this.work = path.join(this.root, 'work');
    this.logs = path.join(this.root, 'logs');
    this.children = [];
    this.eventsRead = 0;
    this.summary = [];
  }

  // The environment of the broker (and so of the pane) and of every CLI
  // call: fresh XDG dirs and HOME, nothing signaltty- or agent-related
  // inherited from whoever runs the test, and no proxy (there is none to
  // reach in here; the fake is on loopback).
  environment() {
    const env = {};
    for (const [key, value] of Object.entries(process.env)) {
      if (/^(SIGNALTTY_|CLAUDE|CODEX_|ANTHROPIC_|OPENAI_|TMUX|XDG_)/.test(key)) continue;
      if (/^(https?|all|no)_proxy$/i.test(key)) continue;
      env[key] = value;
    }
    Object.assign(env, {
      HOME: this.home,
      XDG_RUNTIME_DIR: path.join(this.root, 'run'),
      XDG_STATE_HOME: path.join(this.root, 'state'),
      XDG_CONFIG_HOME: path.join(this.root, 'config'),
      XDG_CACHE_HOME: path.join(this.root, 'cache'),
      TERM: 'xterm-256color',
      LANG: env.LANG && /utf-?8/i.test(env.LANG) ? env.LANG : 'C.UTF-8',
      ...this.agent.env(this),
    });
    return env;
  }

  // Starts a process this driver owns; its output goes to logs/NAME.log.
  startChild(name, argv, env) {
    const out = fs.openSync(path.join(this.logs, `${name}.log`), 'a');
    const child = spawn(argv[0], argv.slice(1), {env, stdio: ['ignore', out, out]});
    fs.closeSync(out);
    child.name = name;
    this.children.push(child);
    return child;
  }

  startFake() {
    const portFile = path.join(this.logs, 'fake.port');
    this.fakeLog = path.join(this.logs, 'fake-requests.jsonl');
    this.startChild('fake', [process.execPath, path.join(__dirname, this.agent.fake),
      '--port-file', portFile, '--log', this.fakeLog, '--delay-ms', String(REPLY_DELAY_MS)], process.env);
    this.port = pollUntil('the fake model API to listen', FAKE_PORT_TIMEOUT_MS, () =>
      fs.existsSync(portFile) ? Number(fs.readFileSync(portFile, 'utf8')) : undefined);
  }

  cli(args, timeoutS = 30) {
    const r = spawnSync(this.bin('signaltty'), args, {env: this.env, encoding: 'utf8', timeout: timeoutS * 1000});
    return {status: r.status, stdout: r.stdout || '', stderr: (r.stderr || '') + (r.error ? String(r.error) : '')};
  }

  cliJson(args, timeoutS = 30) {
    const r = this.cli(['--json', ...args], timeoutS);
    if (r.status !== 0) {
      throw new Failure(`signaltty ${args.join(' ')} exited ${r.status}: ${r.stderr.trim()}`);
    }
    return JSON.parse(r.stdout);
  }

  startBroker() {
    this.broker = this.startChild('broker', [this.bin('signaltty-broker')], this.env);
    pollUntil('the broker to answer server.status', BROKER_READY_TIMEOUT_MS, () => {
      if (!alive(this.broker)) throw new Failure(`the broker exited; see ${this.logs}/broker.log`);
      return this.cli(['server', 'status']).status === 0 ? true : undefined;
    });
    // Every state event from the start, for the summary and for failures.
    this.eventsFile = path.join(this.logs, 'events.jsonl');
    const out = fs.openSync(this.eventsFile, 'a');
    const recorder = spawn(this.bin('signaltty'),
      ['events', '--from-seq', '0', '--events', 'agent.*', '--events', 'attention.*', '--events', 'decision.*'],
      {env: this.env, stdio: ['ignore', out, 'ignore']});
    fs.closeSync(out);
    recorder.name = 'events';
    this.children.push(recorder);
  }

  // ---- pane state ----------------------------------------------------------------

  paneGet() {
    return this.cliJson(['pane', 'get', this.pane]);
  }

  baseline() {
    return this.paneGet().wait_baseline;
  }

  // "lifecycle L (source S), attention A, decision D" for failure messages.
  stateWords() {
    const r = this.cli(['--json', 'pane', 'get', this.pane]);
    if (r.status !== 0) return `nothing (pane get: ${r.stderr.trim()})`;
    const pane = JSON.parse(r.stdout).pane;
    const last = this.lifecycleEvents().pop();
    const source = last ? ` (last change: ${last.state} from ${last.source})` : ' (no lifecycle event yet)';
    const decision = pane.pending_decision ? pane.pending_decision.id : 'none';
    return `lifecycle ${pane.lifecycle}${source}, attention ${pane.attention}, decision ${decision}`;
  }

  screen() {
    const r = this.cli(['pane', 'read', this.pane, '--mode', 'screen']);
    return r.status === 0 ? r.stdout : `(pane read failed: ${r.stderr.trim()})`;
  }

  // Every lifecycle change of the pane so far, as {state, source}.
  lifecycleEvents() {
    const lines = fs.existsSync(this.eventsFile) ? fs.readFileSync(this.eventsFile, 'utf8').split('\n') : [];
    return lines.filter(Boolean).map((line) => JSON.parse(line))
      .filter((e) => e.event && e.event.startsWith('agent.') && e.payload && e.payload.pane_id === this.pane)
      .map((e) => ({state: e.payload.lifecycle, source: e.payload.source}));
  }

  // The lifecycle changes not taken before.
  takeLifecycleEvents() {
    const all = this.lifecycleEvents();
    const fresh = all.slice(this.eventsRead);
    this.eventsRead = all.length;
    return fresh;
  }

  // Waits for the pane's next transition into one of `states` after
  // `baseline` (null: the current state counts too); on a timeout, says
  // what was expected and what the pane shows.
  expectState(states, baseline, what, timeoutS = STATE_TIMEOUT_S) {
    const after = baseline ? ['--after', JSON.stringify(baseline)] : [];
    const r = this.cli(['wait', this.pane, ...states, ...after,
      '--timeout-s', String(timeoutS), '--json'], timeoutS + CLI_GRACE_S);
    if (r.status !== 0) {
      throw new Failure(`expected ${what}: no transition into ${states.join(' or ')} within ${timeoutS} s ` +
        `(signaltty wait: ${r.stderr.trim() || `status ${r.status}`}); pane get shows ${this.stateWords()}`);
    }
    // The recorder gets the event a moment after the wait answers; the
    // summary reads events in order, so it waits for that one.
    pollUntil(`the events stream to show ${states.join(' or ')}`, EVENTS_CATCH_UP_MS, () =>
      this.lifecycleEvents().slice(this.eventsRead).some((e) => states.includes(e.state)) ? true : undefined);
    return JSON.parse(r.stdout);
  }

  expectScreenText(text, what) {
    const r = this.cli(['pane', 'wait-output', this.pane, text, '--mode', 'screen',
      '--timeout-s', String(SCREEN_TEXT_TIMEOUT_S)], SCREEN_TEXT_TIMEOUT_S + CLI_GRACE_S);
    if (r.status !== 0) throw new Failure(`expected ${what}: "${text}" never showed on the pane's screen`);
  }

  // Fails on a lifecycle change of the pane, so far, whose source does not
  // belong to this path. With hooks: `hook`, and `user` for a delivered
  // answer; screen rules may speak only before the agent's first hook
  // (hooks win). Without hooks: screen rules alone.
  expectSources(what) {
    const all = this.lifecycleEvents();
    const firstHook = all.findIndex((e) => e.source === 'hook');
    const belongs = (e, i) => (this.options.path === 'screen'
      ? SCREEN_SOURCES.includes(e.source)
      : ['hook', 'user'].includes(e.source) ||
        (SCREEN_SOURCES.includes(e.source) && (firstHook < 0 || i < firstHook)));
    const stray = all.filter((e, i) => !belongs(e, i));
    if (stray.length > 0) {
      throw new Failure(`${what}: lifecycle changes from a source the ${this.options.path} path does not ` +
        `expect: ${stray.map((e) => `${e.state}(${e.source})`).join(' ')}`);
    }
  }

  // `pane submit`; when the broker refuses it because the agent has not
  // said it is ready (Codex fires its first hook only once a prompt is
  // submitted), the prompt is typed, shown, then entered.
  submit(text) {
    const r = this.cli(['--json', 'pane', 'submit', this.pane, text,
      '--stall-timeout-s', String(SUBMIT_STALL_TIMEOUT_S)], SUBMIT_STALL_TIMEOUT_S + CLI_GRACE_S);
    if (r.status === 0) return 'pane submit';
    if (!r.stderr.includes('AGENT_NOT_READY')) {
      throw new Failure(`signaltty pane submit exited ${r.status}: ${r.stderr.trim()}; ` +
        `pane get shows ${this.stateWords()}`);
    }
    const lifecycle = this.paneGet().pane.lifecycle;
    this.cliJson(['pane', 'send', this.pane, text]);
    this.expectScreenText(text, `the typed prompt on screen (lifecycle ${lifecycle})`);
    this.cliJson(['pane', 'send', this.pane, '\\r']);
    return `pane submit: AGENT_NOT_READY at lifecycle ${lifecycle}, so typed`;
  }

  note(line) {
    this.summary.push(line);
  }

  describe(events) {
    return events.map((e) => `${e.state}(${e.source})`).join(' -> ') || '(no lifecycle change)';
  }
}

// ---- the scenario ----------------------------------------------------------------

// An argv with each path cut to its last part, for the summary.
function commandWords(argv) {
  return argv.map((word) => path.basename(word)).join(' ');
}

// What the pane's program runs as (the broker may add options at launch,
// e.g. Codex's --no-daemon); the driver shares the pane's pid namespace.
function runningCommand(pid) {
  try {
    return commandWords(fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean));
  } catch {
    return 'unknown';
  }
}

function setUp(run) {
  run.startFake();
  run.agent.configure(run);
  run.env = run.environment();
  const route = run.options.path;
  if (route === 'hooks') {
    const installed = run.cliJson(['integration', 'install', run.options.agent, '--home', run.home]);
    run.note(`hooks installed in ${path.relative(run.root, installed.file)}`);
  }
  const status = run.cliJson(['integration', 'status', run.options.agent, '--home', run.home]);
  if (status.installed !== (route === 'hooks')) {
    throw new Failure(`integration status says installed=${status.installed} on the ${route} path`);
  }
  run.startBroker();
  const workspace = run.cliJson(['workspace', 'create', '--cwd', run.work, '--name', 'e2e']).workspace.id;
  const argv = run.agent.argv(run.options['agent-bin'], route);
  const hint = route === 'screen' ? ['--agent-hint', run.options.agent] : [];
  const spawned = run.cliJson(['pane', 'spawn', workspace, '--cols', String(PANE_COLS),
    '--rows', String(PANE_ROWS), ...hint, '--', ...argv]);
  run.pane = spawned.pane.id;
  const integration = spawned.integration ? `${spawned.integration.status}` : 'none';
  run.note(`pane ${run.pane}: ${commandWords(spawned.pane.argv)} (running: ${runningCommand(spawned.pane.pid)}), ` +
    `kind ${spawned.pane.agent.kind}, launch integration ${integration}`);
  if (route === 'screen' && spawned.integration) {
    throw new Failure(`the screen path must start without hooks, but the launch set them up: ` +
      JSON.stringify(spawned.integration));
  }
}

function awaitReady(run) {
  run.expectScreenText(run.agent.readyText, 'the agent at its idle prompt');
  if (run.options.agent === 'claude' && run.options.path === 'hooks') {
    run.expectState(['idle'], null, 'idle from the SessionStart hook', AGENT_READY_TIMEOUT_S);
  }
  const pane = run.paneGet().pane;
  run.note(`start: ${run.describe(run.takeLifecycleEvents())}; now ${pane.lifecycle}/${pane.attention}`);
}

function turnHello(run) {
  const before = run.baseline();
  const how = run.submit(PROMPT_HELLO);
  run.expectState(['working'], before, 'working after the first prompt');
  run.expectState(['done'], before, 'done once "Hello from fake" is answered');
  run.expectScreenText(REPLY_HELLO, 'the first reply');
  const events = run.takeLifecycleEvents();
  run.expectSources('turn 1');
  run.note(`turn 1 "${PROMPT_HELLO}" (${how}): ${run.describe(events)}; screen shows "${REPLY_HELLO}"`);
}

function grantHooks(run) {
  const pane = run.paneGet().pane;
  const decision = pane.pending_decision;
  if (pane.attention !== 'permission_required' || !decision || !decision.answerable ||
      !decision.options.some((o) => o.id === 'once')) {
    throw new Failure(`expected a blocked pane with attention permission_required and an answerable ` +
      `decision offering "once"; pane get shows attention ${pane.attention}, decision ${JSON.stringify(decision)}`);
  }
  const answer = run.cliJson(['decision', 'answer', run.pane, decision.id, 'once']);
  return `attention ${pane.attention}, decision "${decision.prompt.split('\n')[0]}" ` +
    `[${decision.options.map((o) => o.id).join(', ')}] answered once -> ${answer.lifecycle}`;
}

function grantScreen(run) {
  const pane = run.paneGet().pane;
  if (pane.attention !== 'input_required') {
    throw new Failure(`expected attention input_required from the screen rules; pane get shows ${pane.attention}`);
  }
  run.cliJson(['pane', 'send', run.pane, run.agent.approveKey]);
  return `attention ${pane.attention}, key "${run.agent.approveKey}" sent to the TUI`;
}

function turnTool(run) {
  const toolFile = path.join(run.work, TOOL_FILE);
  const before = run.baseline();
  const how = run.submit(PROMPT_WRITE);
  run.expectState(['working'], before, 'working after the second prompt');
  run.expectState(['blocked'], before, 'blocked on the permission for `echo hi > x`');
  if (fs.existsSync(toolFile)) throw new Failure('x exists before the permission was granted');
  const blockedEvents = run.takeLifecycleEvents();
  const grant = run.options.path === 'hooks' ? grantHooks(run) : grantScreen(run);
  run.expectState(['done'], before, 'done after the tool ran and the final reply');
  run.expectScreenText(REPLY_DONE, 'the final reply');
  const text = fs.existsSync(toolFile) ? fs.readFileSync(toolFile, 'utf8') : null;
  if (text !== TOOL_FILE_TEXT) throw new Failure(`after the grant x holds ${JSON.stringify(text)}, not "hi"`);
  const events = [...blockedEvents, ...run.takeLifecycleEvents()];
  run.expectSources('turn 2');
  run.note(`turn 2 "${PROMPT_WRITE}" (${how}): ${run.describe(blockedEvents)}; ${grant}; ` +
    `then ${run.describe(events.slice(blockedEvents.length))}; x = "hi"`);
}

function checkNoHooks(run) {
  if (run.options.path !== 'screen') return;
  const status = run.cliJson(['integration', 'status', run.options.agent, '--home', run.home]);
  if (status.installed) throw new Failure('hooks were installed during the screen path');
  run.note('no hooks installed at the end either');
}

// ---- failure report and teardown ---------------------------------------------

// The last `lines` lines of a file, without those matching `skip`.
function tail(file, lines, skip = null) {
  if (!fs.existsSync(file)) return '(none)';
  const all = fs.readFileSync(file, 'utf8').trimEnd().split('\n');
  return all.filter((line) => !skip || !skip.test(line)).slice(-lines).join('\n');
}

function report(run, error) {
  const out = [`FAIL ${run.options.agent} ${run.options.path}: ${error.message}`];
  if (!(error instanceof Failure)) out.push(error.stack);
  if (run.pane) {
    const get = run.cli(['pane', 'get', run.pane, '--pretty']);
    out.push('--- signaltty pane get --json ---', get.status === 0 ? get.stdout.trimEnd() : get.stderr.trim());
    out.push('--- signaltty pane read --mode screen ---', run.screen().trimEnd());
  }
  out.push('--- state events (last 30) ---', tail(run.eventsFile || '', 30));
  out.push('--- fake model API requests (last 10, bodies cut) ---',
    tail(run.fakeLog || '', 10).split('\n').map((l) => l.slice(0, 300)).join('\n'));
  // The namespace has no system bus: the broker's logind retries are noise.
  out.push('--- broker log (last 20, without logind retries) ---',
    tail(path.join(run.logs, 'broker.log'), 20, /logind: system bus/));
  out.push(`--- kept for inspection: ${run.root}`);
  console.error(out.join('\n'));
}

// Closes the pane through the broker, then ends what this driver started:
// the broker, the events recorder and the fake, each by its own pid.
function tearDown(run) {
  if (run.broker && alive(run.broker)) run.cli(['shutdown', '--force'], 20);
  for (const child of run.children) {
    if (alive(child)) child.kill('SIGTERM');
  }
  try {
    pollUntil('the started processes to exit', TEARDOWN_TIMEOUT_MS, () =>
      run.children.some(alive) ? undefined : true);
  } catch {
    for (const child of run.children.filter(alive)) child.kill('SIGKILL');
  }
}

function main() {
  let options;
  try {
    options = parseArgs(process.argv.slice(2));
  } catch (error) {
    console.error(`agent_e2e.js: ${error.message}`);
    return 2;
  }
  const run = new Run(options);
  let status = 0;
  try {
    setUp(run);
    awaitReady(run);
    turnHello(run);
    turnTool(run);
    checkNoHooks(run);
    console.log(`PASS ${options.agent} ${options.path}`);
    for (const line of run.summary) console.log(`  ${line}`);
  } catch (error) {
    report(run, error);
    status = 1;
  }
  tearDown(run);
  if (status === 0 && !process.env.SIGNALTTY_E2E_KEEP) fs.rmSync(run.root, {recursive: true, force: true});
  return status;
}

process.exit(main());
