// tests/e2e/fake_api_server.js: the HTTP side shared by the fake model APIs
// (fake_anthropic.js, fake_openai.js).
// Runs in: the end-to-end test's network namespace, on 127.0.0.1 only.
// Never: talks to anything but loopback, or needs a package from a registry.
'use strict';

const fs = require('fs');
const http = require('http');

// A request body over this is answered 413 and not parsed: the agents'
// real requests (system prompt, tools, history) are a few hundred KiB.
const MAX_BODY_BYTES = 16 * 1024 * 1024;
// How much of each request body the debug log keeps.
const LOGGED_BODY_BYTES = 4096;

function parseArgs(argv) {
  const out = {};
  for (let i = 0; i < argv.length; i += 2) {
    if (!argv[i].startsWith('--') || i + 1 >= argv.length) {
      throw new Error(`usage: --port-file FILE --log FILE [--delay-ms N]; got ${argv[i]}`);
    }
    out[argv[i].slice(2)] = argv[i + 1];
  }
  if (!out['port-file'] || !out.log) throw new Error('--port-file and --log are required');
  return out;
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    req.on('data', (chunk) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new Error('body too large'));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function parseJson(text) {
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

function sendJson(res, status, value) {
  const body = JSON.stringify(value);
  res.writeHead(status, {'content-type': 'application/json', 'content-length': Buffer.byteLength(body)});
  res.end(body);
}

// Writes one server-sent event per {event, data} after delayMs.
async function sendSse(res, events, delayMs) {
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
  for (const {event, data} of events) {
    res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  }
  res.end();
}

// Serves `route(request)` until killed. A route gets {method, path, body,
// json, headers} and returns {status?, json} or {sse: events, delayMs}.
// Every request is logged as one JSON line: time, method, path, and the
// head of its body.
function serve(name, route) {
  const args = parseArgs(process.argv.slice(2));
  const delayMs = Number(args['delay-ms'] || 0);
  const log = fs.openSync(args.log, 'a');
  const note = (entry) => fs.writeSync(log, JSON.stringify({t: Date.now() / 1000, ...entry}) + '\n');

  const server = http.createServer(async (req, res) => {
    let body = '';
    try {
      body = await readBody(req);
    } catch (error) {
      note({method: req.method, path: req.url, error: String(error)});
      sendJson(res, 413, {error: {type: 'request_too_large', message: String(error)}});
      return;
    }
    const path = req.url.split('?')[0];
    const request = {method: req.method, path, body, json: parseJson(body), headers: req.headers};
    let answer;
    try {
      answer = route(request, delayMs);
    } catch (error) {
      answer = {status: 500, json: {error: {type: 'fake_error', message: String(error.stack || error)}}};
    }
    note({method: req.method, path: req.url, answer: answer.label || (answer.sse ? 'sse' : answer.status || 200),
          body: body.slice(0, LOGGED_BODY_BYTES)});
    if (answer.sse) {
      await sendSse(res, answer.sse, answer.delayMs || 0);
    } else {
      sendJson(res, answer.status || 200, answer.json);
    }
  });
  server.keepAliveTimeout = 60000;
  server.listen(0, '127.0.0.1', () => {
    const port = server.address().port;
    const tmp = `${args['port-file']}.tmp`;
    fs.writeFileSync(tmp, `${port}\n`);
    fs.renameSync(tmp, args['port-file']);
    note({listening: port, name});
  });
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(signal, () => process.exit(0));
}

module.exports = {serve};
