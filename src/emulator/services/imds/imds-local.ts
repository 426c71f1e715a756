import type { EmulatorReply, EmulatorRequest } from "../../kit/emulator-app";
import type { LocalService, ServiceContext } from "../../kit/local-service";
import type { ImdsAttestedContent, ImdsInstance } from "../../../services/imds/types";
import { IMDS_DOCUMENTED_VERSIONS, IMDS_NEWEST_VERSIONS, imdsVersionsFor, type ImdsCategory } from "../../../services/imds/api-versions";
import { signAttestedDocument } from "./attested-signer";

export interface ImdsIdentity {
  clientId: string;
  objectId: string;
  /** ARM id of a user-assigned identity (`msi_res_id`). */
  resourceId?: string;
}

export interface ImdsState {
  instance: ImdsInstance;
  tenantId: string;
  /** The VM's system-assigned identity, or null when it has none. */
  systemIdentity: ImdsIdentity | null;
  userIdentities: ImdsIdentity[];
}

export interface ImdsSeed {
  compute?: Record<string, unknown>;
  network?: ImdsInstance["network"];
  tenantId?: string;
  systemIdentity?: ImdsIdentity | null;
  userIdentities?: ImdsIdentity[];
}

const identitySchema = {
  type: "object",
  additionalProperties: false,
  required: ["clientId", "objectId"],
  properties: { clientId: { type: "string", minLength: 1 }, objectId: { type: "string", minLength: 1 }, resourceId: { type: "string" } },
};

/** IMDS's own words when the api-version is missing or not served for the endpoint (the documentation's example). */
const BAD_VERSION =
  "Bad request. api-version is invalid or was not specified in the request. For more information refer to aka.ms/azureimds";

/** The tenant the IMDS names when its seed names none (also the tenant of the admin route's user tokens). */
export const DEFAULT_IMDS_TENANT_ID = "72f988bf-86f1-41af-91ab-2d7cd011db47";

/** The Instance Metadata Service, as a VM sees it at 169.254.169.254. */
export const imdsLocal: LocalService<ImdsState, ImdsSeed> = {
  name: "imds",
  seedSchema: {
    type: "object",
    additionalProperties: false,
    properties: {
      compute: { type: "object" },
      network: { type: "object" },
      tenantId: { type: "string", minLength: 1 },
      systemIdentity: { anyOf: [identitySchema, { type: "null" }] },
      userIdentities: { type: "array", items: identitySchema },
    },
  },

  initialState(seed) {
    const base = defaultInstance();
    return {
      instance: {
        compute: { ...base.compute, ...(seed?.compute ?? {}) },
        network: seed?.network ?? base.network,
      },
      tenantId: seed?.tenantId ?? DEFAULT_IMDS_TENANT_ID,
      systemIdentity:
        seed?.systemIdentity === undefined
          ? { clientId: "d4b2c1a0-5f6e-4a3b-9c8d-7e6f5a4b3c2d", objectId: "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0" }
          : seed.systemIdentity,
      userIdentities: seed?.userIdentities ?? [],
    };
  },

  mount(ctx) {
    const { app } = ctx;
    // Paths match with or without a trailing slash (`/metadata/identity/oauth2/token/`), as IMDS's do.
    app.route(
      "GET",
      "/metadata/instance",
      imdsGate("instance", () => ({ status: 200, body: ctx.state().instance })),
    );
    app.route(
      "GET",
      "/metadata/attested/document",
      imdsGate("attested", (req) => attested(ctx, req)),
    );
    app.route(
      "GET",
      "/metadata/identity/info",
      imdsGate("identity", () => ({ status: 200, body: { tenantId: ctx.state().tenantId } })),
    );
    app.route(
      "GET",
      "/metadata/identity/oauth2/token",
      imdsGate("identity", (req) => token(ctx, req)),
    );
    // The one unversioned endpoint: the versions IMDS serves, oldest first.
    app.route(
      "GET",
      "/metadata/versions",
      imdsGate(undefined, () => ({ status: 200, body: { apiVersions: [...IMDS_DOCUMENTED_VERSIONS] } })),
    );
  },
};

/**
 * IMDS's front door: `Metadata: true` is required, proxied requests (`X-Forwarded-For`) are refused,
 * and `api-version` must be one IMDS documents for the endpoint's category (identity from
 * 2018-02-01, attested from 2018-10-01 …); `/metadata/versions` (no category) takes none.
 * Identity endpoints answer in OAuth's error shape.
 */
function imdsGate(category: ImdsCategory | undefined, handler: (req: EmulatorRequest) => EmulatorReply | Promise<EmulatorReply>) {
  const identity = category === "identity";
  const versions = new Set<string>(category ? imdsVersionsFor(category) : []);
  const fail = (status: number, code: string, message: string, extra?: Record<string, unknown>): EmulatorReply =>
    identity ? { status, body: { error: code, error_description: message } } : { status, body: { error: message, ...extra } };
  return (req: EmulatorRequest): EmulatorReply | Promise<EmulatorReply> => {
    if (req.headers["x-forwarded-for"] !== undefined) {
      return fail(
        400,
        "bad_request",
        "Bad request. Requests with the X-Forwarded-For header are not accepted; IMDS must be called directly, not through a proxy.",
      );
    }
    if (String(req.headers.metadata ?? "").toLowerCase() !== "true") {
      return fail(400, "invalid_request", "Bad request. Required metadata header not specified");
    }
    if (!category) return handler(req);
    const version = req.query.get("api-version");
    if (!version || !versions.has(version)) {
      return fail(400, "bad_request", BAD_VERSION, { "newest-versions": [...IMDS_NEWEST_VERSIONS] });
    }
    return handler(req);
  };
}

function token(ctx: ServiceContext<ImdsState>, req: EmulatorRequest): EmulatorReply {
  const s = ctx.state();
  const resource = req.query.get("resource");
  if (!resource) {
    return { status: 400, body: { error: "invalid_request", error_description: "Required audience parameter not specified" } };
  }
  const clientId = req.query.get("client_id");
  const objectId = req.query.get("object_id");
  const msiResId = req.query.get("msi_res_id");
  if ([clientId, objectId, msiResId].filter(Boolean).length > 1) {
    return {
      status: 400,
      body: { error: "invalid_request", error_description: "Only one of client_id, object_id and msi_res_id may be given" },
    };
  }
  let identity: ImdsIdentity | null | undefined;
  if (clientId)
    identity =
      s.userIdentities.find((i) => i.clientId === clientId) ?? (s.systemIdentity?.clientId === clientId ? s.systemIdentity : undefined);
  else if (objectId) identity = s.userIdentities.find((i) => i.objectId === objectId);
  else if (msiResId) identity = s.userIdentities.find((i) => i.resourceId?.toLowerCase() === msiResId.toLowerCase());
  else identity = s.systemIdentity ?? (s.userIdentities.length === 1 ? s.userIdentities[0] : undefined);
  if (!identity) {
    return { status: 400, body: { error: "invalid_request", error_description: "Identity not found" } };
  }
  const ttl = ctx.settings.tokenTtlSeconds;
  const { token: accessToken, claims } = ctx.tokens.issue({
    resource,
    tenantId: s.tenantId,
    objectId: identity.objectId,
    clientId: identity.clientId,
    ttlSeconds: ttl,
    now: req.now,
  });
  const body: Record<string, string> = {
    access_token: accessToken,
    client_id: identity.clientId,
    expires_in: String(ttl),
    expires_on: String(claims.exp),
    ext_expires_in: String(ttl),
    not_before: String(claims.nbf),
    resource,
    token_type: "Bearer",
  };
  if (objectId) body.object_id = objectId;
  if (msiResId) body.msi_res_id = msiResId;
  return { status: 200, body };
}

function attested(ctx: ServiceContext<ImdsState>, req: EmulatorRequest): EmulatorReply {
  const nonce = req.query.get("nonce") ?? "";
  if (nonce && !/^[A-Za-z0-9]{1,32}$/.test(nonce)) {
    return { status: 400, body: { error: "Bad request. The nonce must be up to 32 alphanumeric characters." } };
  }
  const c = ctx.state().instance.compute ?? {};
  const created = new Date(req.now);
  const content: ImdsAttestedContent = {
    nonce,
    plan: { name: c.plan?.name ?? "", product: c.plan?.product ?? "", publisher: c.plan?.publisher ?? "" },
    timeStamp: { createdOn: imdsTime(created), expiresOn: imdsTime(new Date(req.now + 6 * 3600_000)) },
    vmId: c.vmId ?? "",
    licenseType: c.licenseType ?? "",
    subscriptionId: c.subscriptionId ?? "",
    sku: c.sku ?? "",
  };
  return { status: 200, body: { encoding: "pkcs7", signature: signAttestedDocument(JSON.stringify(content)) } };
}

/** IMDS writes attested times as `MM/DD/YY HH:MM:SS -0000`. */
function imdsTime(d: Date): string {
  const p = (n: number) => String(n).padStart(2, "0");
  return `${p(d.getUTCMonth() + 1)}/${p(d.getUTCDate())}/${p(d.getUTCFullYear() % 100)} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())} -0000`;
}

/** The example VM of the default estate; seeds override single fields. */
function defaultInstance(): ImdsInstance {
  const sub = "00000000-0000-0000-0000-000000000000";
  return {
    compute: {
      azEnvironment: "AzurePublicCloud",
      isHostCompatibilityLayerVm: "false",
      licenseType: "",
      location: "eastus",
      name: "stackwarden-runner",
      offer: "0001-com-ubuntu-server-jammy",
      osProfile: { adminUsername: "azureuser", computerName: "stackwarden-runner", disablePasswordAuthentication: "true" },
      osType: "Linux",
      placementGroupId: "",
      plan: { name: "", product: "", publisher: "" },
      platformFaultDomain: "0",
      platformUpdateDomain: "0",
      provider: "Microsoft.Compute",
      publicKeys: [],
      publisher: "canonical",
      resourceGroupName: "rg-ci",
      resourceId: `/subscriptions/${sub}/resourceGroups/rg-ci/providers/Microsoft.Compute/virtualMachines/stackwarden-runner`,
      securityProfile: { secureBootEnabled: "true", virtualTpmEnabled: "true" },
      sku: "22_04-lts-gen2",
      storageProfile: {
        imageReference: { id: "", offer: "0001-com-ubuntu-server-jammy", publisher: "canonical", sku: "22_04-lts-gen2", version: "latest" },
        osDisk: {
          caching: "ReadWrite",
          createOption: "FromImage",
          diskSizeGB: "30",
          managedDisk: { id: "", storageAccountType: "Premium_LRS" },
          name: "stackwarden-runner-osdisk",
          osType: "Linux",
          writeAcceleratorEnabled: "false",
        },
        dataDisks: [],
      },
      subscriptionId: sub,
      tags: "team:platform;purpose:gitops",
      tagsList: [
        { name: "team", value: "platform" },
        { name: "purpose", value: "gitops" },
      ],
      version: "22.04.202311010",
      vmId: "6e0a8f7c-1b2d-4c3e-9f4a-5b6c7d8e9f01",
      vmScaleSetName: "",
      vmSize: "Standard_D2s_v5",
      zone: "1",
    },
    network: {
      interface: [
        {
          ipv4: { ipAddress: [{ privateIpAddress: "10.0.0.4", publicIpAddress: "" }], subnet: [{ address: "10.0.0.0", prefix: "24" }] },
          ipv6: { ipAddress: [] },
          macAddress: "000D3A1B2C3D",
        },
      ],
    },
  };
}
