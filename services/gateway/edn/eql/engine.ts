import { StrandError } from '../../../../contracts/errors';
import { isEdnMap, type EdnMap, type EdnValue } from '../edn-value';
import { EqlError, type EqlNode } from './query';

/** How one attribute is answered; a join attribute also names the attributes of the items it yields. */
interface EqlAttribute<C> {
  resolve(ctx: C): Promise<EdnValue> | EdnValue;
  children?: readonly string[];
}

export type EqlResolvers<C> = Readonly<Record<string, EqlAttribute<C>>>;

/** Every attribute of the query (and of its joins' first level) that no resolver answers, `:ns/name` spelled. */
export function unknownAttributes<C>(nodes: EqlNode[], resolvers: EqlResolvers<C>): string[] {
  const unknown: string[] = [];
  for (const node of nodes) {
    const attr = Object.hasOwn(resolvers, node.key) ? resolvers[node.key] : undefined;
    if (!attr) {
      unknown.push(`:${node.key}`);
      continue;
    }
    if (node.kind !== 'join') continue;
    if (!attr.children) {
      unknown.push(`:${node.key} (not a join)`);
      continue;
    }
    for (const child of node.children) if (!attr.children.includes(child.key)) unknown.push(`:${child.key} (in :${node.key})`);
  }
  return unknown;
}

/** Keeps of `value` (a map, or a vector of maps) only what the join asks for; absent attributes are nil. */
function select(value: EdnValue, nodes: EqlNode[]): EdnValue {
  if (Array.isArray(value)) return value.map((item) => select(item, nodes));
  if (!isEdnMap(value)) return value;
  const out: EdnMap = {};
  for (const node of nodes) {
    const v = value[node.key] ?? null;
    out[node.key] = node.kind === 'join' ? select(v, node.children) : v;
  }
  return out;
}

/**
 * Answers a parsed query: unknown attributes refuse the whole query (`unknown`, naming them all);
 * the attributes are then resolved together, and any resolver failing fails the query (`failed`).
 */
export async function runEql<C>(nodes: EqlNode[], resolvers: EqlResolvers<C>, ctx: C): Promise<EdnMap> {
  const unknown = unknownAttributes(nodes, resolvers);
  if (unknown.length > 0) throw new EqlError('unknown', `unknown attributes: ${unknown.join(' ')}`, unknown);
  const values = await Promise.all(
    nodes.map(async (node) => {
      try {
        return await resolvers[node.key]!.resolve(ctx);
      } catch (err) {
        if (err instanceof EqlError) throw err;
        // Only a StrandError's message is meant for clients; anything else stays in the gateway's log.
        const why = err instanceof StrandError ? err.message : 'internal error (see the gateway log)';
        throw new EqlError('failed', `resolving :${node.key} failed: ${why}`, [`:${node.key}`], err);
      }
    }),
  );
  const result: EdnMap = {};
  nodes.forEach((node, i) => {
    result[node.key] = node.kind === 'join' ? select(values[i]!, node.children) : values[i]!;
  });
  return result;
}
