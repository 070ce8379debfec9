import { toolDiff } from '../../../terminal/tool-display';

/** The change an edit makes, before it is made, so a person approves what they saw. */
export function Diff({ tool, params }: { tool: string; params: unknown }) {
  const lines = toolDiff(tool, params, 40);
  if (!lines) return null;
  return (
    <pre class="diff" aria-label="Change">
      {lines.map((l, i) => (
        <div key={i} class={l.sign === '+' ? 'add' : 'del'}>
          {l.sign} {l.text}
        </div>
      ))}
    </pre>
  );
}
