import type { ComponentChildren } from 'preact';

/** One column: its header, and what each row shows in it (`class`: how the cell is set, e.g. `num`). */
export interface Column<Row> {
  title: string;
  /** The header is for screen readers only (an actions column). */
  hiddenTitle?: boolean;
  class?: string;
  cell: (row: Row) => ComponentChildren;
}

/**
 * The operator view's tables (recent failures, jobs): a caption naming the table (what a screen reader
 * and the tests find it by), column headers, one row per item. The shape is written once here.
 */
export function DataTable<Row>({ name, class: className, columns, rows, rowKey, rowClass }: { name: string; class: string; columns: Array<Column<Row>>; rows: Row[]; rowKey: (row: Row) => string; rowClass?: (row: Row) => string | undefined }) {
  return (
    <table class={className}>
      <caption class="visually-hidden">{name}</caption>
      <thead>
        <tr>
          {columns.map((c) => (
            <th scope="col" key={c.title}>
              {c.hiddenTitle ? <span class="visually-hidden">{c.title}</span> : c.title}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={rowKey(row)} class={rowClass?.(row)}>
            {columns.map((c) => (
              <td key={c.title} class={c.class}>
                {c.cell(row)}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
