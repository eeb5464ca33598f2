import { describe, expect, it } from 'vitest';
import { inputSchema } from '../../relay/src/mcp/mcp-server.js';
import { TOOLS } from '../../relay/src/mcp/tools.js';
import { TOOLBOX_TOOLS } from '../../relay/src/mcp/toolbox-tools.js';

/**
 * The tool input schemas as `tools/list` gives them, checked against the
 * subset every MCP client can map: clients that turn tool schemas into
 * Gemini function declarations (an OpenAPI subset) take one `type` per
 * schema, no references, no `oneOf`/`allOf`/`not`, string enums only, and
 * objects and arrays that say what they hold. `anyOf` (one type per branch)
 * is in that subset.
 */

type Schema = { [key: string]: unknown };
const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array']);

/** Every place the schema breaks the portable subset, as `path: what`. */
function portabilityIssues(schema: Schema, path: string): string[] {
  const issues: string[] = [];
  const at = (what: string) => issues.push(`${path}: ${what}`);
  for (const key of ['$ref', '$defs', 'definitions', 'oneOf', 'allOf', 'not']) if (key in schema) at(`has ${key}`);
  if ('type' in schema) {
    if (typeof schema.type !== 'string') at(`type ${JSON.stringify(schema.type)} is not a single string`);
    else if (!TYPES.has(schema.type)) at(`type ${schema.type} is not one of ${[...TYPES].join(', ')}`);
  } else if (!Array.isArray(schema.anyOf)) at('neither type nor anyOf');
  if ('const' in schema && !('type' in schema)) at('const without a type');
  if ('enum' in schema) {
    if (!Array.isArray(schema.enum) || !schema.enum.every((value) => typeof value === 'string')) at(`enum ${JSON.stringify(schema.enum)} is not all strings`);
    else if (schema.type !== 'string') at('enum on a schema whose type is not string');
  }
  if (schema.type === 'object') {
    if (typeof schema.properties !== 'object' || schema.properties === null) at('object without properties');
    for (const name of (schema.required as string[] | undefined) ?? [])
      if (!(name in ((schema.properties as Schema | undefined) ?? {}))) at(`required ${name} is not a property`);
  }
  if (schema.type === 'array' && (typeof schema.items !== 'object' || schema.items === null || Array.isArray(schema.items)))
    at('array without one items schema');
  for (const [name, field] of Object.entries((schema.properties as Record<string, Schema> | undefined) ?? {}))
    issues.push(...portabilityIssues(field, `${path}.properties.${name}`));
  if (typeof schema.items === 'object' && schema.items !== null && !Array.isArray(schema.items))
    issues.push(...portabilityIssues(schema.items as Schema, `${path}.items`));
  ((schema.anyOf as Schema[] | undefined) ?? []).forEach((branch, index) => {
    if (typeof branch.type !== 'string') issues.push(`${path}.anyOf[${index}]: a branch without one type`);
    issues.push(...portabilityIssues(branch, `${path}.anyOf[${index}]`));
  });
  return issues;
}

describe('MCP tool input schemas are portable', () => {
  // The groups' tools too: a client that turns them on must be able to read them.
  const listed = [...TOOLS, ...TOOLBOX_TOOLS].map((tool) => ({ name: tool.name, schema: inputSchema(tool) as Schema }));

  it.each(listed.map(({ name, schema }) => [name, schema] as const))('%s', (name, schema) => {
    expect(schema.type).toBe('object');
    expect(portabilityIssues(schema, name)).toEqual([]);
  });

  it("a union of primitives (browser_act's fill value) is anyOf with one type per branch", () => {
    const act = listed.find(({ name }) => name === 'browser_act')!.schema as {
      properties: { fields: { items: { properties: { value: Schema } } } };
    };
    expect(act.properties.fields.items.properties.value).toEqual({ anyOf: [{ type: 'string' }, { type: 'boolean' }] });
  });

  it('the checker catches what a one-type dialect refuses', () => {
    const bad: Schema = {
      type: 'object',
      properties: {
        a: { type: ['string', 'boolean'] },
        b: { $ref: '#/$defs/b' },
        c: { oneOf: [{ type: 'string' }] },
        d: { const: 'x' },
        e: { type: 'number', enum: [1, 2] },
        f: { type: 'object' },
        g: { type: 'array' },
        h: { type: 'null' },
      },
    };
    const flagged = new Set(portabilityIssues(bad, 'bad').map((issue) => issue.split(':')[0]));
    expect([...flagged].sort()).toEqual(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'].map((name) => `bad.properties.${name}`));
    expect(portabilityIssues({ type: 'object', properties: { a: { anyOf: [{ type: 'string' }, { type: 'boolean' }] } } }, 'good')).toEqual([]);
  });
});
