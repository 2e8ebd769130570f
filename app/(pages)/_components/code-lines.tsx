import type { Segment } from "../_lib/highlight";

/** One line of code: highlighted segments as spans, or the plain text. */
export function CodeLine({ text, segments }: { text: string; segments?: Segment[] }) {
  if (!segments) return <>{text}</>;
  return (
    <>
      {segments.map((segment, index) =>
        segment.className ? (
          <span key={index} className={segment.className}>
            {segment.text}
          </span>
        ) : (
          segment.text
        ),
      )}
    </>
  );
}
