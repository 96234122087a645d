// Live events over Server-Sent Events, read with fetch(): EventSource cannot send an
// Authorization header, and a token must not go in the URL. The stream is parsed here as the
// SSE specification says (fields id/event/data, comments, blank line dispatches), and the
// connection is resumed with Last-Event-ID after any break, so no event is missed.

const IDLE_MS = 45000; // the daemon sends ": heartbeat" every 15 s; three missed: reconnect

/** Feeds text chunks, calls onMessage({id, event, data}) per complete message. */
export class SseParser {
  constructor(onMessage) {
    this.onMessage = onMessage;
    this.buf = '';
    this.afterCR = false;
    this.reset();
  }

  reset() {
    this.data = [];
    this.event = '';
    this.id = null;
  }

  push(chunk) {
    if (!chunk) return;
    let text = chunk;
    // A CR that ended the last chunk was a line end; an LF right after it belongs to it.
    if (this.afterCR && text.startsWith('\n')) text = text.slice(1);
    this.afterCR = false;
    this.buf += text;
    for (;;) {
      const m = /\r\n|\n|\r/.exec(this.buf);
      if (!m) break;
      const line = this.buf.slice(0, m.index);
      this.buf = this.buf.slice(m.index + m[0].length);
      if (m[0] === '\r' && this.buf === '') this.afterCR = true;
      this.line(line);
    }
  }

  line(line) {
    if (line === '') {
      if (this.data.length) this.onMessage({ id: this.id, event: this.event || 'message', data: this.data.join('\n') });
      this.data = [];
      this.event = '';
      return;
    }
    if (line.startsWith(':')) return; // comment (heartbeat)
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') this.data.push(value);
    else if (field === 'event') this.event = value;
    else if (field === 'id' && !value.includes('\0')) this.id = value;
  }
}

/**
 * Opens the session's event stream and keeps it open until signal aborts.
 *   onEvent(event)      each event (parsed JSON), in order, possibly again after a reconnect:
 *                       the caller drops seqs it already has
 *   onStatus(s, info)   'connecting' | 'live' | 'reconnecting' | 'failed' (info: an Error)
 *   lastEventId()       the last seq the caller holds (sent as Last-Event-ID on reconnect)
 */
export function openEventStream({ sessionId, token, lastEventId, onEvent, onStatus, signal }) {
  let attempt = 0;

  async function once() {
    const headers = { Accept: 'text/event-stream' };
    if (token) headers.Authorization = `Bearer ${token}`;
    const last = lastEventId();
    if (last) headers['Last-Event-ID'] = String(last);
    const ctl = new AbortController();
    const stop = () => ctl.abort();
    signal.addEventListener('abort', stop);
    let idle;
    const arm = () => {
      clearTimeout(idle);
      idle = setTimeout(stop, IDLE_MS);
    };
    try {
      const res = await fetch(`/v1/sessions/${encodeURIComponent(sessionId)}/events?after=${last || 0}`, {
        headers,
        signal: ctl.signal,
        cache: 'no-store',
      });
      if (!res.ok) {
        let msg = `The event stream answered ${res.status}.`;
        try {
          msg = (await res.json()).error.message || msg;
        } catch {
          /* keep the generic message */
        }
        const err = new Error(msg);
        err.status = res.status;
        throw err;
      }
      onStatus('live');
      attempt = 0;
      const parser = new SseParser((m) => {
        let ev;
        try {
          ev = JSON.parse(m.data);
        } catch {
          return; // not an event: ignore rather than break the stream
        }
        onEvent(ev);
      });
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      arm();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        arm();
        parser.push(value);
      }
    } finally {
      clearTimeout(idle);
      signal.removeEventListener('abort', stop);
    }
  }

  (async () => {
    onStatus('connecting');
    while (!signal.aborted) {
      try {
        await once();
      } catch (err) {
        if (signal.aborted) break;
        // 4xx will not get better by retrying (unknown session, bad token).
        if (err && err.status >= 400 && err.status < 500 && err.status !== 408 && err.status !== 429) {
          onStatus('failed', err);
          return;
        }
      }
      if (signal.aborted) break;
      attempt += 1;
      onStatus('reconnecting');
      const wait = Math.min(15000, 500 * 2 ** Math.min(attempt, 5));
      await new Promise((r) => {
        const t = setTimeout(r, wait);
        signal.addEventListener('abort', () => {
          clearTimeout(t);
          r();
        }, { once: true });
      });
    }
  })();
}
