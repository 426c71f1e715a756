import { describe, expect, it } from "vitest";
import { parseStackConfig, stackConfigFromValues } from "../../../src/domain/stack/stack-config";
import { parseEnvReference, secretVariableName } from "../../../src/domain/probes/parameter-source";
import { resolveProbeParameters } from "../../../src/domain/probes/resolve-parameters";
import { YamlInputError } from "../../../src/platform/yaml/located-yaml";

/** `stackwarden:probes` in a stack file: references only, checked against the doctype's spec, errors located. */
const HEAD = `config:\n  stackwarden:subscriptionId: 00000000-0000-0000-0000-000000000000\n  stackwarden:probes:\n`;
const stack = (probes: string) => parseStackConfig("Pulumi.t.yaml", HEAD + probes, {});
const errorOf = (probes: string, env: NodeJS.ProcessEnv = {}) => {
  try {
    parseStackConfig("Pulumi.t.yaml", HEAD + probes, env);
  } catch (e) {
    expect(e).toBeInstanceOf(YamlInputError);
    return (e as Error).message;
  }
  throw new Error("expected the stack to be refused");
};

const TRCER = (params: string, extra = "") =>
  `    - name: tc\n      issuer: lawcollegeandaman\n      doctype: trcer\n${extra}      parameters:\n${params}`;

describe("stackwarden:probes in the stack file", () => {
  it("reads env references, demo defaults, aliases and Pulumi secrets, keeping no value", () => {
    const s = stack(
      TRCER(`        admissionNo: \${env:TC_ADMN}\n        FullName: { secure: v1:abcdef }\n`) +
        `    - name: health\n      issuer: newindia\n      doctype: hlipc\n      parameters:\n` +
        `        fullName: "\${env:H_NAME:-Asha Verma}"\n        UDF1: \${env:H_POLICY:-99/01 x}\n        customerId: \${env:H_CUST}\n        policyStartDate: \${env:H_START}\n`,
    );
    expect(s.probes).toEqual([
      {
        name: "tc",
        issuer: "lawcollegeandaman",
        doctype: "trcer",
        format: "pdf",
        parameters: {
          ADMN_NO: { from: "env", variable: "TC_ADMN" },
          FullName: { from: "secret", variable: "STACKWARDEN_PROBE_TC_FULL_NAME" },
        },
        source: { file: "Pulumi.t.yaml", line: 4, column: 7 },
      },
      {
        name: "health",
        issuer: "newindia",
        doctype: "hlipc",
        format: "pdf",
        parameters: {
          FullName: { from: "env", variable: "H_NAME", demoDefault: "Asha Verma" },
          UDF1: { from: "env", variable: "H_POLICY", demoDefault: "99/01 x" },
          UDF2: { from: "env", variable: "H_CUST" },
          UDF3: { from: "env", variable: "H_START" },
        },
        source: { file: "Pulumi.t.yaml", line: 10, column: 7 },
      },
    ]);
    expect(JSON.stringify(s)).not.toContain("abcdef");
  });

  it("refuses a parameter written as a value, at its line, without repeating it", () => {
    const msg = errorOf(TRCER(`        ADMN_NO: "99123"\n        FullName: Arun Ekka\n`));
    expect(msg).toBe(
      "Pulumi.t.yaml:8:18: config.stackwarden:probes[0].parameters.ADMN_NO: probe parameters are personal data and are never written in the stack file: write ${env:NAME} (the value comes from the environment variable NAME) or store it as a Pulumi secret (pulumi config set --secret --path)",
    );
    expect(msg).not.toContain("99123");
    for (const bad of ["$env:X", "${env:X", "${ENV:X}", "${env:1X}", "${env:X:-}", "${env:X}tail", "12", "true"]) {
      const m = errorOf(TRCER(`        ADMN_NO: '${bad}'\n        FullName: \${env:N}\n`));
      expect(m, bad).toContain("probe parameters are personal data");
      expect(m, bad).not.toContain(bad);
    }
  });

  it("checks each probe against its doctype's spec", () => {
    expect(errorOf(TRCER(`        ADMN_NO: \${env:A}\n`))).toBe(
      "Pulumi.t.yaml:8:9: config.stackwarden:probes[0].parameters: trcer needs FullName (fullName: Full name)",
    );
    expect(errorOf(TRCER(`        ADMN_NO: \${env:A}\n        FullName: \${env:N}\n        policyNo: \${env:P}\n`))).toMatch(
      /parameters\.policyNo: trcer has no parameter "policyNo"; it takes ADMN_NO \(admissionNo\), FullName \(fullName\)$/,
    );
    expect(errorOf(TRCER(`        ADMN_NO: \${env:A}\n        admissionNo: \${env:B}\n        FullName: \${env:N}\n`))).toMatch(
      /parameters\.admissionNo: "admissionNo" and "ADMN_NO" are the same parameter \(ADMN_NO\)$/,
    );
    expect(errorOf(TRCER(`        ADMN_NO: \${env:A}\n        FullName: \${env:N}\n`, "      format: xml\n"))).toMatch(
      /probes\[0\]\.format: trcer is offered as pdf only/,
    );
    expect(errorOf(TRCER(`        ADMN_NO: \${env:A}\n        FullName: \${env:N}\n`).replace("lawcollegeandaman", "mbose"))).toMatch(
      /probes\[0\]\.doctype: trcer is issued by lawcollegeandaman, not mbose/,
    );
    const twice = TRCER(`        ADMN_NO: \${env:A}\n        FullName: \${env:N}\n`);
    expect(errorOf(twice + twice)).toMatch(/probes\[1\]\.name: duplicate probe name "tc": already stackwarden:probes\[0\]/);
    expect(errorOf(TRCER(`        ADMN_NO: \${env:A}\n        FullName: \${env:N}\n`, "      timeout: 3\n"))).toMatch(
      /probes\[0\]\.timeout: unknown key/,
    );
    expect(errorOf(TRCER(`        ADMN_NO: \${env:A}\n        FullName: \${env:N}\n`).replace("name: tc", "name: Not_OK"))).toMatch(
      /probes\[0\]\.name: must match pattern/,
    );
  });

  it("govid may be xml or pdf; pdf is the default", () => {
    const probe = (format: string) =>
      stack(
        `    - { name: g, issuer: swavlambancard, doctype: govid, ${format}parameters: { CERT_NO: "\${env:C}", FullName: "\${env:N}" } }\n`,
      ).probes![0].format;
    expect(probe("format: xml, ")).toBe("xml");
    expect(probe("")).toBe("pdf");
  });

  it("a Pulumi program's decrypted secret parameters are secrets; plain values in a key that is not secret are refused", () => {
    const values = {
      "stackwarden:subscriptionId": "00000000-0000-0000-0000-000000000000",
      "stackwarden:probes": [
        { name: "tc", issuer: "lawcollegeandaman", doctype: "trcer", parameters: { ADMN_NO: "99123", FullName: "${env:N}" } },
      ],
    };
    const s = stackConfigFromValues(values, "stack t config", { secretKeys: new Set(["stackwarden:probes"]) });
    expect(s.probes![0].parameters).toEqual({
      ADMN_NO: { from: "secret", variable: "STACKWARDEN_PROBE_TC_ADMN_NO", value: "99123" },
      FullName: { from: "env", variable: "N" },
    });
    expect(() => stackConfigFromValues(values, "stack t config")).toThrow(
      /^stack t config: stackwarden:probes\[0\]\.parameters\.ADMN_NO: probe parameters are personal data/,
    );
  });
});

describe("parameter references", () => {
  it("parses the syntax", () => {
    expect(parseEnvReference("${env:A_1}")).toEqual({ from: "env", variable: "A_1" });
    expect(parseEnvReference("${env:_X:-a b/c:-d}")).toEqual({ from: "env", variable: "_X", demoDefault: "a b/c:-d" });
    for (const bad of ["${env:}", "${env:A-B}", "${env:A:-}", "${env:A} ", "x${env:A}", "${env:A:-b}c}"])
      expect(parseEnvReference(bad), bad).toBeUndefined();
    expect(secretVariableName("health-policy", "policyNo")).toBe("STACKWARDEN_PROBE_HEALTH_POLICY_POLICY_NO");
    expect(secretVariableName("x", "CERT_NO")).toBe("STACKWARDEN_PROBE_X_CERT_NO");
  });

  const probe = stack(
    `    - name: health\n      issuer: newindia\n      doctype: hlipc\n      parameters:\n` +
      `        fullName: "\${env:H_NAME:-Demo Name}"\n        UDF1: \${env:H_POLICY}\n        customerId: { secure: v1:x }\n        policyStartDate: \${env:H_START:-01/01/2024}\n`,
  ).probes![0];

  it("resolves from the environment; an empty variable falls back to the demo value where demo values are allowed", () => {
    const env = { H_NAME: "", H_POLICY: "P-1", STACKWARDEN_PROBE_HEALTH_CUSTOMER_ID: "C-1", H_START: "02/02/2024" };
    expect(resolveProbeParameters(probe, env, { allowDemoDefaults: true })).toEqual({
      FullName: "Demo Name",
      UDF1: "P-1",
      UDF2: "C-1",
      UDF3: "02/02/2024",
    });
  });

  it("names the variable to set, never a value", () => {
    const base = { H_POLICY: "P-1", STACKWARDEN_PROBE_HEALTH_CUSTOMER_ID: "C-1" };
    expect(() => resolveProbeParameters(probe, { STACKWARDEN_PROBE_HEALTH_CUSTOMER_ID: "C-1" }, { allowDemoDefaults: true })).toThrow(
      "probe health: parameter UDF1 (Policy Number): set the environment variable H_POLICY",
    );
    expect(() => resolveProbeParameters(probe, { H_POLICY: "P-1" }, { allowDemoDefaults: true })).toThrow(
      "probe health: parameter UDF2 (Customer Id) is a Pulumi secret (secure:) that only Pulumi can decrypt; set STACKWARDEN_PROBE_HEALTH_CUSTOMER_ID to supply it to the CLI",
    );
    let message = "";
    try {
      resolveProbeParameters(probe, base, { allowDemoDefaults: false, endpoint: "https://apisetu.gov.in" });
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toBe(
      "probe health: parameter FullName (Full name): H_NAME is not set, and its demo value (invented, for the emulator's example estate) is never sent to https://apisetu.gov.in; set H_NAME, or point STACKWARDEN_APISETU_ENDPOINT at the emulator",
    );
    expect(message).not.toContain("Demo Name");
  });
});
