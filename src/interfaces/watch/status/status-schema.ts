import schema from "./stack-status.schema.json";

/**
 * The JSON Schema of the status API's responses (`stack-status.schema.json`): the API serves it at
 * `/api/v1/schema`, and tests validate every response against it. Its definitions, by response:
 * `StackStatusList` (`GET /api/v1/stacks`), `StackStatus` (`GET /api/v1/stacks/{name}`),
 * `DatabaseList` (`GET /api/v1/stacks/{name}/databases`), `ApiError`.
 */
export const STATUS_API_SCHEMA = schema;

/** The schema's `$id`. */
export const STATUS_API_SCHEMA_ID: string = schema.$id;

/** The `$ref` of one response kind in the schema, for a validator (`ajv.getSchema(statusSchemaRef("StackStatus"))`). */
export function statusSchemaRef(definition: "StackStatusList" | "StackStatus" | "DatabaseList" | "ApiError"): string {
  return `${schema.$id}#/definitions/${definition}`;
}
