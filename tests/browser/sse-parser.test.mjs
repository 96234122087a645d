// The client's SSE parser (web/js/sse.js), run in Node: the live log depends on it reading
// every event whatever the chunking of the stream, its line endings and its comments.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

// web/ has no package.json, so Node before 20.19 would read sse.js as CommonJS: load it as a
// module from its source instead.
const src = readFileSync(new URL('../../web/js/sse.js', import.meta.url), 'utf8');
const { SseParser } = await import(`data:text/javascript,${encodeURIComponent(src)}`);

function parse(chunks) {
  const out = [];
  const p = new SseParser((m) => out.push(m));
  for (const c of chunks) p.push(c);
  return out;
}

const STREAM = 'id: 1\nevent: session_created\ndata: {"seq":1}\n\n: heartbeat\n\nid: 2\nevent: roll\ndata: {"seq":2,\ndata: "x":"a:b"}\n\n';

test('events, comments and multi-line data', () => {
  assert.deepEqual(parse([STREAM]), [
    { id: '1', event: 'session_created', data: '{"seq":1}' },
    { id: '2', event: 'roll', data: '{"seq":2,\n"x":"a:b"}' },
  ]);
});

test('the same events whatever the chunk boundaries, with CRLF or CR line ends', () => {
  const want = parse([STREAM]);
  for (const eol of ['\n', '\r\n', '\r']) {
    const s = STREAM.replace(/\n/g, eol);
    for (let size = 1; size <= 7; size++) {
      const chunks = [];
      for (let i = 0; i < s.length; i += size) chunks.push(s.slice(i, i + size));
      assert.deepEqual(parse(chunks), want, `eol ${JSON.stringify(eol)}, chunks of ${size}`);
    }
  }
});

test('an unfinished message is not dispatched; a blank line without data dispatches nothing', () => {
  assert.deepEqual(parse(['id: 3\ndata: {"seq":3}\n']), []);
  assert.deepEqual(parse(['id: 4\n\n', 'event: x\n\n']), []);
  // "data" with no colon is an empty data line; a value's first space only is dropped.
  assert.deepEqual(parse(['data\ndata:  two\n\n']), [{ id: null, event: 'message', data: '\n two' }]);
});
