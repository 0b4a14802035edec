// The /api/ws client. It reconnects after a loss with exponential backoff
// (0.5 s doubling to 10 s) and says what it is doing through onState.

import { wsURL } from './api.js';

const MIN_DELAY = 500;
const MAX_DELAY = 10000;

export class Stream {
  // handlers: {connect(): Promise (before each connection), message(msg),
  // state(name, detail)}.
  constructor(handlers) {
    this.h = handlers;
    this.delay = MIN_DELAY;
    this.ws = null;
    this.timer = 0;
    this.attempt = 0;
  }

  start() {
    this.open();
  }

  // restart drops the connection and opens a new one at once, for a resync.
  restart() {
    if (this.ws) {
      this.ws.onclose = null;
      this.ws.close();
      this.ws = null;
    }
    this.open();
  }

  // healthy is called once the snapshot is complete (its snapshot_complete
  // message): the next loss starts the backoff from the beginning again.
  healthy() {
    this.delay = MIN_DELAY;
  }

  async open() {
    clearTimeout(this.timer);
    // A restart while connect() is still waiting supersedes this attempt:
    // only the latest one may open a socket.
    const attempt = ++this.attempt;
    this.h.state('connecting');
    try {
      await this.h.connect();
    } catch (err) {
      if (attempt === this.attempt) this.retry(err.message);
      return;
    }
    if (attempt !== this.attempt) return;
    const ws = new WebSocket(wsURL());
    this.ws = ws;
    ws.onopen = () => this.h.state('live');
    ws.onmessage = (ev) => {
      // A connection being closed for a restart may still deliver: its
      // messages are the old connection's, not this one's.
      if (this.ws !== ws) return;
      let msg;
      try {
        msg = JSON.parse(ev.data);
      } catch {
        return;
      }
      this.h.message(msg);
    };
    ws.onclose = (ev) => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.retry(ev.reason || 'the connection was lost');
    };
  }

  retry(reason) {
    const delay = this.delay;
    this.delay = Math.min(this.delay * 2, MAX_DELAY);
    this.h.state('disconnected', { reason, retryAt: Date.now() + delay });
    this.timer = setTimeout(() => this.open(), delay);
  }
}
