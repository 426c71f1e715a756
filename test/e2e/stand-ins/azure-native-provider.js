// STAND-IN for Pulumi's azure-native resource provider, for stackwarden's e2e tier only (issue 43).
//
// The real plugin's binaries come from GitHub releases, which cannot be reached here. This one lets
// the Pulumi CLI run programs that declare azure-native resources (in any language: the e2e tier
// uses Pulumi YAML) without Azure:
//   * GetSchema serves specs/pulumi-azure-native/schema-excerpt.json, the real schema's tokens and
//     property shapes for the resources stackwarden judges, with a description saying it is a stand-in;
//     GetPluginInfo reports the excerpt's version;
//   * Check returns the inputs (failing, as the real provider does, when a required input is missing);
//   * Create echoes the inputs as outputs, with a deterministic id built like the resource's ARM id,
//     and the one output ARM itself always sets, `name` (the id's last segment), which programs
//     reference (`${server.name}`) and which the schema lists as an output of every such resource;
//   * Diff compares old outputs (= old inputs) with the new inputs; Read, Update and Delete echo too.
// It calls no Azure API and computes no output the real provider would (no principalId, no key URI).
// It is found as `pulumi-resource-azure-native` on PATH through bin/ beside this file, which only the
// e2e helpers put on PATH (test/e2e/helpers/yaml-program.ts): never beside the CLI, where it would
// shadow a real azure-native plugin.
"use strict";

const crypto = require("node:crypto");
const fs = require("node:fs");
const path = require("node:path");
const provider = require("@pulumi/pulumi/provider");

/** Said in the schema's description and on stderr when the plugin starts. */
const STAND_IN_NOTE =
  "STAND-IN for the azure-native provider (stackwarden e2e tier): serves the schema excerpt in specs/pulumi-azure-native, echoes inputs as outputs and calls no Azure API.";

const SCHEMA_FILE = path.join(__dirname, "..", "..", "..", "specs", "pulumi-azure-native", "schema-excerpt.json");
const excerpt = JSON.parse(fs.readFileSync(SCHEMA_FILE, "utf8"));

/** The engine's marker for a value not known until apply (preview). */
const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";
/** The signature key and value of a secret the engine sends (the provider accepts secrets). */
const SIG_KEY = "4dabf18193072939515e22adb298388d";
const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";

/** ARM resource ids by token, as Azure's REST specs spell the paths (specs/sql, specs/keyvault, specs/authorization). */
const RG = "/subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers";
const ARM_PATHS = {
  "azure-native:sql:Server": `${RG}/Microsoft.Sql/servers/{serverName}`,
  "azure-native:sql:Database": `${RG}/Microsoft.Sql/servers/{serverName}/databases/{databaseName}`,
  "azure-native:sql:TransparentDataEncryption": `${RG}/Microsoft.Sql/servers/{serverName}/databases/{databaseName}/transparentDataEncryption/{tdeName}`,
  "azure-native:sql:EncryptionProtector": `${RG}/Microsoft.Sql/servers/{serverName}/encryptionProtector/{encryptionProtectorName}`,
  "azure-native:sql:ServerKey": `${RG}/Microsoft.Sql/servers/{serverName}/keys/{keyName}`,
  "azure-native:keyvault:Vault": `${RG}/Microsoft.KeyVault/vaults/{vaultName}`,
  "azure-native:keyvault:Key": `${RG}/Microsoft.KeyVault/vaults/{vaultName}/keys/{keyName}`,
  "azure-native:keyvault:ManagedHsm": `${RG}/Microsoft.KeyVault/managedHSMs/{name}`,
  "azure-native:authorization:RoleAssignment": "{scope}/providers/Microsoft.Authorization/roleAssignments/{roleAssignmentName}",
};
/** Azure accepts only "current" for these singleton names; azure-native leaves them optional. */
const SINGLETON_NAMES = new Set(["tdeName", "encryptionProtectorName"]);

function tokenOf(urn) {
  // urn:pulumi:<stack>::<project>::<qualified type>::<name>; the type's last `$` part is its own.
  return urn.split("::")[2].split("$").pop();
}

function nameOf(urn) {
  return urn.split("::").slice(3).join("::");
}

function plain(value) {
  return value && typeof value === "object" && value[SIG_KEY] === SECRET_SIG ? value.value : value;
}

/** A deterministic GUID for a name Azure wants as a GUID (a role assignment's), from the URN. */
function guidFor(urn) {
  const h = crypto.createHash("sha256").update(urn).digest("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

/**
 * The resource's ARM id from its inputs: path segments from the inputs of the same name, the
 * subscription from ARM_SUBSCRIPTION_ID (as the real provider reads it) or zeros, a missing name
 * from the resource's Pulumi name ("current" for singletons, a GUID for role assignments).
 */
function armId(urn, inputs) {
  const token = tokenOf(urn);
  const template = ARM_PATHS[token];
  if (!template) return `/stand-in/${token}/${nameOf(urn)}`;
  return template
    .replace(/\{(\w+)\}/g, (_, param) => {
      if (param === "subscriptionId") return process.env.ARM_SUBSCRIPTION_ID || "00000000-0000-0000-0000-000000000000";
      const given = plain(inputs[param]);
      if (typeof given === "string" && given !== "") return param === "scope" ? given.replace(/\/+$/, "") : given;
      if (SINGLETON_NAMES.has(param)) return "current";
      if (param === "roleAssignmentName") return guidFor(urn);
      return nameOf(urn);
    })
    .replace(/^\/\//, "/");
}

function schemaOf(urn) {
  return excerpt.resources[tokenOf(urn)];
}

const standIn = {
  version: excerpt.version,
  schema: JSON.stringify({ ...excerpt, description: `${STAND_IN_NOTE} ${excerpt.description}` }),

  async check(urn, _olds, news) {
    const resource = schemaOf(urn);
    if (!resource) return { inputs: news, failures: [{ property: "", reason: `${tokenOf(urn)} is not in the stand-in's schema excerpt` }] };
    const failures = (resource.requiredInputs ?? [])
      .filter((p) => news[p] === undefined || news[p] === null)
      .map((p) => ({ property: p, reason: `missing required property '${p}'` }));
    return { inputs: news, failures };
  },

  async diff(_id, urn, olds, news) {
    const inputs = schemaOf(urn)?.inputProperties ?? {};
    // Old outputs are the old inputs plus `name` from the id: a `name` the new inputs do not set is no change.
    const keys = new Set([...Object.keys(olds), ...Object.keys(news)].filter((k) => k !== "name" || news.name !== undefined));
    const changed = [...keys].filter((k) => news[k] === UNKNOWN || JSON.stringify(olds[k]) !== JSON.stringify(news[k]));
    return { changes: changed.length > 0, replaces: changed.filter((k) => inputs[k]?.willReplaceOnChanges) };
  },

  async create(urn, inputs) {
    const id = armId(urn, inputs);
    return { id, outs: { ...inputs, name: id.split("/").pop() } };
  },

  async read(id, _urn, props) {
    return { id, props, inputs: props };
  },

  async update(id, _urn, _olds, news) {
    return { outs: { ...news, name: id.split("/").pop() } };
  },

  async delete() {},
};

process.stderr.write(`pulumi-resource-azure-native ${excerpt.version}: ${STAND_IN_NOTE}\n`);
provider.main(standIn, process.argv.slice(2));
