/**
 * Splits a byte stream into records ending in `separator` (the last one may lack it), without
 * decoding: callers decode only what they keep. Stops reading when the consumer stops.
 */
export async function* records(stream: AsyncIterable<Buffer>, separator = 10): AsyncGenerator<Buffer> {
  let pending: Buffer | null = null;
  for await (const chunk of stream) {
    const data: Buffer = pending ? Buffer.concat([pending, chunk]) : chunk;
    let start = 0;
    for (let end = data.indexOf(separator, start); end !== -1; end = data.indexOf(separator, start)) {
      yield data.subarray(start, end);
      start = end + 1;
    }
    pending = start < data.length ? Buffer.from(data.subarray(start)) : null;
  }
  if (pending) yield pending;
}
