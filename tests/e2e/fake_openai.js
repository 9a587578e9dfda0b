#!/usr/bin/env node
// tests/e2e/fake_openai.js: a scripted OpenAI Responses API for Codex.
// Runs in: the end-to-end test's network namespace (a `model_providers`
// entry with wire_api = "responses" points here).
// Never: answers a main-loop turn outside the script below.
//
//   node fake_openai.js --port-file FILE --log FILE [--delay-ms N]
//
// The script, keyed on the last input item of a request that offers a shell
// tool (Codex's main loop):
//   a prompt mentioning "hello"      -> text "Hello from fake"
//   a prompt mentioning "write"      -> text, then a shell call `echo hi > x`
//                                       asking for escalated permissions, so
//                                       Codex must ask before it runs
//   a function call output           -> text "Done: x now contains hi."
// Anything else (the title thread, model lists, telemetry) gets a short
// harmless answer. Main-loop replies hold their first byte back for
// --delay-ms, so the working state is visible.
'use strict';

const {serve} = require('./fake_api_server.js');

const MODEL = 'gpt-fake';
const TOOL_COMMAND = 'echo hi > x';
const JUSTIFICATION = 'Do you want to let the fake model write x in the workspace?';
let nextId = 1;

function id(prefix) {
  return `${prefix}_fake_${String(nextId++).padStart(6, '0')}`;
}

function toolNames(json) {
  return (json.tools || []).map((tool) => tool.name || tool.type).filter(Boolean);
}

// The arguments of a shell call for whichever shell tool this Codex offers.
function shellCall(json) {
  const names = toolNames(json);
  const escalate = {sandbox_permissions: 'require_escalated', justification: JUSTIFICATION};
  if (names.includes('shell_command')) return {name: 'shell_command', args: {command: TOOL_COMMAND, ...escalate}};
  if (names.includes('exec_command')) return {name: 'exec_command', args: {cmd: TOOL_COMMAND, ...escalate}};
  if (names.includes('shell')) return {name: 'shell', args: {command: ['bash', '-lc', TOOL_COMMAND], ...escalate}};
  return null;
}

function textOf(item) {
  if (typeof item.content === 'string') return item.content;
  return (item.content || []).map((part) => part.text || '').join('\n');
}

function message(text) {
  return {type: 'message', role: 'assistant', id: id('msg'), content: [{type: 'output_text', text, annotations: []}]};
}

// The scripted output items of a main-loop request.
function scriptedTurn(json) {
  const input = Array.isArray(json.input) ? json.input : [];
  const last = input[input.length - 1] || {};
  if (last.type === 'function_call_output' || last.type === 'custom_tool_call_output') {
    return {label: 'final', items: [message('Done: x now contains hi.')]};
  }
  const lastUser = input.filter((item) => item.type === 'message' && item.role === 'user').pop();
  const text = lastUser ? textOf(lastUser).toLowerCase() : '';
  const call = shellCall(json);
  if (text.includes('write') && call) {
    return {
      label: `tool_call:${call.name}`,
      items: [
        message("I'll write hi to x; it needs your approval."),
        {type: 'function_call', id: id('fc'), call_id: id('call'), name: call.name, arguments: JSON.stringify(call.args)},
      ],
    };
  }
  if (text.includes('hello')) return {label: 'hello', items: [message('Hello from fake')]};
  return {label: 'other', items: [message('The fake model has no script for that.')]};
}

function usage() {
  return {input_tokens: 12, input_tokens_details: {cached_tokens: 0}, output_tokens: 8,
          output_tokens_details: {reasoning_tokens: 0}, total_tokens: 20};
}

function sseOf(turn, model) {
  const responseId = id('resp');
  const base = {id: responseId, object: 'response', model, status: 'in_progress', output: []};
  const events = [{event: 'response.created', data: {type: 'response.created', response: base}}];
  turn.items.forEach((item, index) => {
    events.push({event: 'response.output_item.added', data: {type: 'response.output_item.added', output_index: index,
                 item: item.type === 'message' ? {...item, content: []} : {...item, arguments: ''}}});
    if (item.type === 'message') {
      events.push({event: 'response.output_text.delta', data: {type: 'response.output_text.delta', item_id: item.id,
                   output_index: index, content_index: 0, delta: item.content[0].text}});
    }
    events.push({event: 'response.output_item.done', data: {type: 'response.output_item.done', output_index: index, item}});
  });
  const done = {...base, status: 'completed', output: turn.items, usage: usage()};
  events.push({event: 'response.completed', data: {type: 'response.completed', response: done}});
  return events;
}

function responses(request, delayMs) {
  const json = request.json || {};
  const main = shellCall(json) !== null;
  const turn = main ? scriptedTurn(json) : {label: 'side', items: [message('Fake scripted session')]};
  const model = json.model || MODEL;
  if (json.stream === false) {
    return {label: turn.label, json: {id: id('resp'), object: 'response', model, status: 'completed',
                                      output: turn.items, usage: usage()}};
  }
  return {label: turn.label, sse: sseOf(turn, model), delayMs: main ? delayMs : 0};
}

function route(request, delayMs) {
  if (request.method === 'POST' && request.path.endsWith('/responses')) return responses(request, delayMs);
  if (request.path.endsWith('/models')) {
    return {json: {object: 'list', data: [{id: MODEL, object: 'model', owned_by: 'fake'}], models: []}};
  }
  return {label: 'ignored', json: {}};
}

serve('openai', route);
