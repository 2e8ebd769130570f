/** The hidden fields a server action of a project page needs: which project, and the page to return to. */
export function ProjectFields({ namespace, slug, back }: { namespace: string; slug: string; back: string }) {
  return (
    <>
      <input type="hidden" name="namespace" value={namespace} />
      <input type="hidden" name="slug" value={slug} />
      <input type="hidden" name="back" value={back} />
    </>
  );
}
