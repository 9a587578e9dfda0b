#!/usr/bin/env node
// tests/e2e/fake_anthropic.js: a scripted Anthropic Messages API for Claude Code.
// Runs in: the end-to-end test's network namespace (ANTHROPIC_BASE_URL points here).
// Never: answers a main-loop turn outside the script below.
//
//   node fake_anthropic.js --port-file FILE --log FILE [--delay-ms N]
//
// The script, keyed on the last user message of a request that offers the
// Bash tool (Claude's main loop):
//   a prompt mentioning "hello"      -> text "Hello from fake"
//   a prompt mentioning "write"      -> text, then a Bash tool call `echo hi > x`
//   a tool result                    -> text "Done: x now contains hi."
// Anything else (title and topic requests, quota probes, token counts, model
// lists, telemetry) gets a short harmless answer. Main-loop replies hold
// their first byte back for --delay-ms, so the working state is visible.
'use strict';

const {serve} = require('./fake_api_server.js');

const MODEL = 'claude-opus-5-5';
const TOOL_COMMAND = 'echo hi > x';
let nextId = 1;

function id(prefix) {
  return `${prefix}_fake_${String(nextId++).padStart(6, '0')}`;
}

function blocksOf(message) {
  if (!message) return [];
  return typeof message.content === 'string' ? [{type: 'text', text: message.content}] : message.content || [];
}

// The user's words in a message, without the <system-reminder> blocks
// Claude Code adds around them.
function userText(message) {
  return blocksOf(message)
    .filter((b) => b.type === 'text' && !b.text.trimStart().startsWith('<system-reminder>'))
    .map((b) => b.text)
    .join('\n');
}

function isMainLoop(json) {
  return Array.isArray(json.tools) && json.tools.some((tool) => tool.name === 'Bash');
}

// The scripted reply to a main-loop request: a list of content blocks and
// the stop reason. Claude Code appends `system` role messages after the
// user's, so the script reads the last `user` one.
function scriptedTurn(json) {
  const last = json.messages.filter((m) => m.role === 'user').pop();
  if (blocksOf(last).some((b) => b.type === 'tool_result')) {
    return {label: 'final', blocks: [{type: 'text', text: 'Done: x now contains hi.'}], stop: 'end_turn'};
  }
  const text = userText(last).toLowerCase();
  if (text.includes('write')) {
    return {
      label: 'tool_use',
      blocks: [
        {type: 'text', text: "I'll write hi to x."},
        {type: 'tool_use', id: id('toolu'), name: 'Bash', input: {command: TOOL_COMMAND, description: 'Write hi to x'}},
      ],
      stop: 'tool_use',
    };
  }
  if (text.includes('hello')) return {label: 'hello', blocks: [{type: 'text', text: 'Hello from fake'}], stop: 'end_turn'};
  return {label: 'other', blocks: [{type: 'text', text: 'The fake model has no script for that.'}], stop: 'end_turn'};
}

// Side requests: a title or topic answer where JSON is asked for, a plain
// sentence otherwise.
function sideTurn(json) {
  const system = JSON.stringify(json.system || '');
  const text = /json/i.test(system) || json.output_format
    ? JSON.stringify({title: 'Fake scripted session', isNewTopic: false})
    : 'Fake scripted session';
  return {label: 'side', blocks: [{type: 'text', text}], stop: 'end_turn'};
}

const usage = {input_tokens: 12, output_tokens: 8, cache_creation_input_tokens: 0, cache_read_input_tokens: 0};

function messageOf(turn, model) {
  return {
    id: id('msg'), type: 'message', role: 'assistant', model, content: turn.blocks,
    stop_reason: turn.stop, stop_sequence: null, usage,
  };
}

function sseOf(turn, model) {
  const message = {...messageOf(turn, model), content: [], stop_reason: null};
  const events = [{event: 'message_start', data: {type: 'message_start', message}}];
  turn.blocks.forEach((block, index) => {
    if (block.type === 'text') {
      events.push({event: 'content_block_start', data: {type: 'content_block_start', index, content_block: {type: 'text', text: ''}}});
      events.push({event: 'content_block_delta', data: {type: 'content_block_delta', index, delta: {type: 'text_delta', text: block.text}}});
    } else {
      const start = {type: 'tool_use', id: block.id, name: block.name, input: {}};
      events.push({event: 'content_block_start', data: {type: 'content_block_start', index, content_block: start}});
      events.push({event: 'content_block_delta', data: {type: 'content_block_delta', index, delta: {type: 'input_json_delta', partial_json: JSON.stringify(block.input)}}});
    }
    events.push({event: 'content_block_stop', data: {type: 'content_block_stop', index}});
  });
  events.push({event: 'message_delta', data: {type: 'message_delta', delta: {stop_reason: turn.stop, stop_sequence: null}, usage: {output_tokens: 8}}});
  events.push({event: 'message_stop', data: {type: 'message_stop'}});
  return events;
}

function messages(request, delayMs) {
  const json = request.json || {};
  if (!Array.isArray(json.messages) || json.messages.length === 0) {
    return {status: 400, json: {type: 'error', error: {type: 'invalid_request_error', message: 'messages required'}}};
  }
  const main = isMainLoop(json);
  const turn = main ? scriptedTurn(json) : sideTurn(json);
  const model = json.model || MODEL;
  if (json.stream) return {label: turn.label, sse: sseOf(turn, model), delayMs: main ? delayMs : 0};
  return {label: turn.label, json: messageOf(turn, model)};
}

function route(request, delayMs) {
  if (request.method === 'POST' && request.path.endsWith('/v1/messages/count_tokens')) {
    return {json: {input_tokens: 42}};
  }
  if (request.method === 'POST' && request.path.endsWith('/v1/messages')) return messages(request, delayMs);
  if (request.path.endsWith('/v1/models')) {
    return {json: {data: [{type: 'model', id: MODEL, display_name: 'Fake Opus', created_at: '2026-01-01T00:00:00Z'}],
                   has_more: false, first_id: MODEL, last_id: MODEL}};
  }
  return {label: 'ignored', json: {}};
}

serve('anthropic', route);
