import type { Readable } from "node:stream";

/** git's pkt-line framing: 4 hex digits of length (including themselves), then the payload. */
const MAX_PKT_LENGTH = 65520;
export const FLUSH_PKT = Buffer.from("0000");

export function pktLine(payload: string | Buffer): Buffer {
  const body = typeof payload === "string" ? Buffer.from(payload, "utf8") : payload;
  if (body.length + 4 > MAX_PKT_LENGTH) throw new Error(`pkt-line payload too long (${body.length} bytes)`);
  return Buffer.concat([Buffer.from((body.length + 4).toString(16).padStart(4, "0")), body]);
}

/** A packet: its payload, or "flush" for a flush-pkt (0000). */
export type Packet = Buffer | "flush";

/** Reads pkt-lines from a byte stream; `next()` resolves to null at end of stream. */
export class PktLineReader {
  private buffered = Buffer.alloc(0);
  private readonly chunks: AsyncIterator<Buffer>;
  private ended = false;

  constructor(stream: Readable) {
    this.chunks = stream[Symbol.asyncIterator]();
  }

  async next(): Promise<Packet | null> {
    while (true) {
      const packet = this.take();
      if (packet !== undefined) return packet;
      if (this.ended) {
        if (this.buffered.length > 0) throw new Error("pkt-line stream ended inside a packet");
        return null;
      }
      const chunk = await this.chunks.next();
      if (chunk.done) this.ended = true;
      else this.buffered = Buffer.concat([this.buffered, chunk.value]);
    }
  }

  /** Payloads up to the next flush-pkt (as trimmed text); null when the stream ended first. */
  async section(): Promise<string[] | null> {
    const lines: string[] = [];
    while (true) {
      const packet = await this.next();
      if (packet === null) return null;
      if (packet === "flush") return lines;
      lines.push(packet.toString("utf8").replace(/\n$/, ""));
    }
  }

  private take(): Packet | undefined {
    if (this.buffered.length < 4) return undefined;
    const header = this.buffered.subarray(0, 4).toString("latin1");
    if (!/^[0-9a-f]{4}$/i.test(header)) throw new Error(`Bad pkt-line header ${JSON.stringify(header)}`);
    const length = parseInt(header, 16);
    if (length === 0) {
      this.buffered = this.buffered.subarray(4);
      return "flush";
    }
    if (length < 4) throw new Error(`Unsupported pkt-line length ${length}`);
    if (this.buffered.length < length) return undefined;
    const payload = this.buffered.subarray(4, length);
    this.buffered = this.buffered.subarray(length);
    return payload;
  }
}
