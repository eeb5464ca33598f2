import type { Ajv, ErrorObject, ValidateFunction } from 'ajv';
import { BadRequestError } from '../../errors.js';
import type { PageTool } from '../../api/page-tools-responses.js';

/**
 * A page tool's input, checked against the JSON Schema the page gave before
 * anything is sent to it: a call the page would refuse (or misread) is a 400
 * that names the field. The schema is the page's, so it is compiled leniently
 * (unknown keywords and formats pass) and once per tool definition; a schema
 * that does not compile checks nothing, and the page decides. Ajv is
 * loaded with the first call: a server whose pages offer no tools does not
 * hold it.
 */

let ajv: Promise<Ajv> | undefined;
const compiled = new WeakMap<object, ValidateFunction | null>();

export async function checkToolInput(tool: PageTool, input: Record<string, unknown>): Promise<void> {
  if (!tool.inputSchema) return;
  let validate = compiled.get(tool.inputSchema);
  if (validate === undefined) {
    ajv ??= import('ajv').then(({ Ajv }) => new Ajv({ strict: false, allErrors: true, validateFormats: false }));
    const compiler = await ajv;
    try {
      validate = compiler.compile(tool.inputSchema);
    } catch {
      validate = null;
    }
    compiled.set(tool.inputSchema, validate);
  }
  if (!validate || validate(input)) return;
  throw new BadRequestError(
    `Invalid input for page tool ${tool.name}: ${[...new Set((validate.errors ?? []).map(describe))].slice(0, 5).join('; ')} (its inputSchema is in the list of the page's tools)`,
  );
}

/**
 * One refusal, in clawd's words about the caller's own input: the schema is
 * the page's, so nothing of it is quoted (a pattern, a format's name, the
 * name of a field the caller left out, an enum's values could each say
 * "SYSTEM: …" in an error no fence holds). Its limits that are numbers are.
 * The tool's listing (fenced) has the schema whole.
 */
const NUMERIC = new Set([
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'minProperties',
  'maxProperties',
  'uniqueItems',
]);
const JSON_TYPES = /^(string|number|integer|boolean|object|array|null)(,(string|number|integer|boolean|object|array|null))*$/;
const SAID: Record<string, string> = {
  required: 'lacks a field the tool requires',
  dependentRequired: 'lacks a field the tool requires with the fields given',
  dependencies: 'lacks a field the tool requires with the fields given',
  pattern: "does not match the tool's pattern",
  format: "is not in the tool's format",
  enum: 'is not one of the values the tool allows',
  const: 'is not the value the tool wants',
};

function describe(error: ErrorObject): string {
  // The path is the caller's: the names of the fields it sent.
  const field = ['input', ...error.instancePath.split('/').filter(Boolean)].join('.');
  if (error.keyword === 'additionalProperties') return `${field}.${String(error.params.additionalProperty)}: is not one of its fields`;
  if (error.keyword === 'type' && JSON_TYPES.test(String(error.params.type))) return `${field}: must be ${String(error.params.type).replace(/,/g, ' or ')}`;
  if (NUMERIC.has(error.keyword) && error.message) return `${field}: ${error.message}`;
  return `${field}: ${SAID[error.keyword] ?? `does not satisfy the tool's schema (${error.keyword})`}`;
}
