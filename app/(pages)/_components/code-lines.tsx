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

/** A numbered row of a file's table: `#L<n>` anchor (out of the tab order), optional cells before it, the code. */
export function NumberedLine({
  n,
  text,
  segments,
  children,
}: {
  n: number;
  text: string;
  segments?: Segment[];
  children?: React.ReactNode;
}) {
  return (
    <tr id={`L${n}`}>
      {children}
      <td className="num">
        <a href={`#L${n}`} tabIndex={-1}>
          {n}
        </a>
      </td>
      <td>
        <CodeLine text={text} segments={segments} />
      </td>
    </tr>
  );
}
