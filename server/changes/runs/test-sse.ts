/** The events of a whole server-sent event stream's text (comments left out), for tests. */
export function parseSse(text: string): Array<{ id?: string; event: string; data: string }> {
  return text
    .split("\n\n")
    .filter((block) => block.trim() && !block.startsWith(":"))
    .map((block) => {
      const fields = Object.fromEntries(
        block.split("\n").map((line) => [line.slice(0, line.indexOf(":")), line.slice(line.indexOf(":") + 2)]),
      );
      return { id: fields.id, event: fields.event, data: fields.data };
    });
}
