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
  throw new BadRequestError(`Invalid input for page tool ${tool.name}: ${(validate.errors ?? []).slice(0, 5).map(describe).join('; ')}`);
}

function describe(error: ErrorObject): string {
  const field = ['input', ...error.instancePath.split('/').filter(Boolean)].join('.');
  if (error.keyword === 'required') return `${field}.${String(error.params.missingProperty)}: is required`;
  if (error.keyword === 'additionalProperties') return `${field}.${String(error.params.additionalProperty)}: is not one of its fields`;
  return `${field}: ${error.message ?? 'is not valid'}`;
}
