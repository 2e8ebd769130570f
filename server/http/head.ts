/**
 * A HEAD handler for a plain route module: the GET answer's status and headers without its body
 * (a stream the GET opened is cancelled at once).
 */
export function headFromGet(get: (req: Request) => Promise<Response>): (req: Request) => Promise<Response> {
  return async (req) => {
    const response = await get(new Request(req, { method: "GET" }));
    await response.body?.cancel();
    return new Response(null, { status: response.status, headers: response.headers });
  };
}
