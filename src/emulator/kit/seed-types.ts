/**
 * Seed fragments declared once: each builder returns the JSON Schema the seed validator compiles
 * (plain JSON, as ajv and the build's standalone validator take it) and carries the TypeScript type
 * of the value it validates, read with `Static<typeof schema>`. So a resource's seed type and its
 * schema cannot drift apart. The names follow TypeBox (`Type.Object`, `Type.Optional`, `Static`),
 * the schema-first library this stands in for; objects are closed (`additionalProperties: false`),
 * as every seed section is, and `required` lists the keys not wrapped in `Optional`.
 */

declare const STATIC: unique symbol;
/** Marks an object property as optional (a symbol key: neither JSON nor ajv sees it). */
const OPTIONAL: unique symbol = Symbol("seed-types.optional");

/** A JSON Schema whose validated value has type `T`. */
export type TSchema<T = unknown> = { readonly [key: string]: unknown } & { readonly [STATIC]: T };
/** A property schema that may be left out. */
export type TOptional<S extends TSchema> = S & { readonly [OPTIONAL]: true };
/** The type of the value a schema validates. */
export type Static<S extends TSchema> = S[typeof STATIC];

/** Property schemas of an object, by key. */
export type TProperties = Record<string, TSchema>;
type OptionalKeys<P extends TProperties> = { [K in keyof P]: P[K] extends { readonly [OPTIONAL]: true } ? K : never }[keyof P];
type RequiredKeys<P extends TProperties> = Exclude<keyof P, OptionalKeys<P>>;
type Flat<T> = { [K in keyof T]: T[K] } & {};
/** The value type of an object with these properties: optional ones may be absent. */
export type StaticProperties<P extends TProperties> = Flat<
  { [K in RequiredKeys<P>]: Static<P[K]> } & { [K in OptionalKeys<P>]?: Static<P[K]> }
>;

/** Keywords a schema may carry besides its type (`description` documents every key: optional or required, default, bounds). */
export type Keywords = { description?: string } & Record<string, unknown>;

function schema<T>(s: object): TSchema<T> {
  return s as TSchema<T>;
}

/** Builds seed schemas; see the module comment. */
export const Type = {
  /** A string (`pattern`, `minLength`, `maxLength` …). */
  String: (k: Keywords = {}) => schema<string>({ type: "string", ...k }),
  /** One of the given strings. */
  Enum: <const V extends readonly string[]>(values: V, k: Keywords = {}) => schema<V[number]>({ type: "string", enum: values, ...k }),
  /** An integer (`minimum`, `maximum` …). */
  Integer: (k: Keywords = {}) => schema<number>({ type: "integer", ...k }),
  /** A number. */
  Number: (k: Keywords = {}) => schema<number>({ type: "number", ...k }),
  /** true or false. */
  Boolean: (k: Keywords = {}) => schema<boolean>({ type: "boolean", ...k }),
  /** An array of `items`. */
  Array: <S extends TSchema>(items: S, k: Keywords = {}) => schema<Static<S>[]>({ type: "array", items, ...k }),
  /** A closed object: only these keys, those not `Optional` required. */
  Object: <P extends TProperties>(properties: P, k: Keywords = {}) => {
    const required = Object.keys(properties).filter((key) => !(OPTIONAL in properties[key]));
    return schema<StaticProperties<P>>({
      type: "object",
      additionalProperties: false,
      ...(required.length ? { required } : {}),
      ...k,
      properties,
    });
  },
  /** An object keyed by data (`propertyNames` says which keys), each value a `value`. */
  Record: <S extends TSchema>(value: S, k: Keywords = {}) =>
    schema<Record<string, Static<S>>>({ type: "object", ...k, additionalProperties: value }),
  /** Exactly one of the schemas (a value of any of their types). */
  OneOf: <const S extends readonly TSchema[]>(schemas: S, k: Keywords = {}) => schema<Static<S[number]>>({ ...k, oneOf: schemas }),
  /** The same schema as a property that may be left out (a copy: the schema stays required elsewhere). */
  Optional: <S extends TSchema>(s: S): TOptional<S> => ({ ...s, [OPTIONAL]: true }) as TOptional<S>,
};
