// A parser for the text/event-stream format (the HTML standard's
// "interpreting an event stream"), fed chunks of a fetch body. Node has no
// EventSource before version 22, and EventSource cannot send the
// Authorization header, so the fetch transport parses the stream itself.

/** One dispatched server-sent event. */
export interface SSEMessage {
  /** The event's id field; undefined when the event carried none. */
  id?: string;
  /** The event field; "message" when absent. */
  event: string;
  /** The data lines, joined with "\n". */
  data: string;
  /** A retry field (milliseconds) that came with or before this event. */
  retry?: number;
}

/** SSEParser turns chunks of text into events; it keeps a partial line between chunks. */
export class SSEParser {
  private buf = '';
  private data: string[] = [];
  private event = '';
  private id: string | undefined;
  private retry: number | undefined;
  private sawBOM = false;

  /** push parses a chunk and returns the events it completed. */
  push(chunk: string): SSEMessage[] {
    if (!this.sawBOM) {
      if (chunk.length === 0) return [];
      this.sawBOM = true;
      if (chunk.charCodeAt(0) === 0xfeff) chunk = chunk.slice(1);
    }
    this.buf += chunk;
    const out: SSEMessage[] = [];
    for (;;) {
      const m = /\r\n|\r|\n/.exec(this.buf);
      // A lone \r at the end may be the first half of \r\n: wait for more.
      if (m === null || (m[0] === '\r' && m.index === this.buf.length - 1)) break;
      const line = this.buf.slice(0, m.index);
      this.buf = this.buf.slice(m.index + m[0].length);
      const ev = this.line(line);
      if (ev !== undefined) out.push(ev);
    }
    return out;
  }

  private line(line: string): SSEMessage | undefined {
    if (line === '') return this.dispatch();
    if (line.startsWith(':')) return undefined; // a comment (heartbeat)
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    switch (field) {
      case 'data':
        this.data.push(value);
        break;
      case 'event':
        this.event = value;
        break;
      case 'id':
        if (!value.includes('\0')) this.id = value;
        break;
      case 'retry':
        if (/^\d+$/.test(value)) this.retry = Number(value);
        break;
    }
    return undefined;
  }

  private dispatch(): SSEMessage | undefined {
    const hadData = this.data.length > 0;
    const ev: SSEMessage = { id: this.id, event: this.event || 'message', data: this.data.join('\n'), retry: this.retry };
    this.data = [];
    this.event = '';
    this.id = undefined;
    return hadData ? ev : undefined;
  }
}
