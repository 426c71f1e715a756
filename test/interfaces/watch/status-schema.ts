import Ajv from "ajv";
import addFormats from "ajv-formats";
import { expect } from "vitest";
import { STATUS_API_SCHEMA, statusSchemaRef } from "../../../src/interfaces/watch/status/status-schema";

// The status API's JSON Schema, compiled once for the tests that validate what the API answers.

const ajv = new Ajv({ allErrors: true, strict: true });
addFormats(ajv);
ajv.addSchema(STATUS_API_SCHEMA);

/** Asserts that `body` is valid as the given response kind of the status API (with ajv's errors when not). */
export function expectValid(kind: "StackStatusList" | "StackStatus" | "DatabaseList" | "ApiError", body: unknown): void {
  const validate = ajv.getSchema(statusSchemaRef(kind))!;
  const ok = validate(body);
  expect(ok ? [] : validate.errors, `${kind} is valid against stack-status.schema.json`).toEqual([]);
}

/** Whether `body` is valid as that kind (for tests that expect a rejection). */
export function isValid(kind: "StackStatusList" | "StackStatus" | "DatabaseList" | "ApiError", body: unknown): boolean {
  return ajv.getSchema(statusSchemaRef(kind))!(body) as boolean;
}
