import { randomBytes } from "node:crypto";
import type { Command } from "commander";
import { clientSetFromEnv } from "../../../clients/client-set";
import { readAttestedDocument } from "../../../services/imds/attested-document";
import type { ImdsAttestedContent } from "../../../services/imds/types";
import { endpointsFromEnv } from "../../../platform/settings/endpoints";
import { REDACTED } from "../../../platform/http/redaction";
import { choiceOption } from "../option-parsers";
import type { CommandIO } from "../command-io";
import { renderKeyValues } from "../render/key-values";

const ARM_RESOURCE = "https://management.azure.com/";

export function registerWhoami(program: Command, io: CommandIO): void {
  program
    .command("whoami")
    .description("show what IMDS says of this machine and its managed identity (STACKWARDEN_IMDS_ENDPOINT, AZURE_CLIENT_ID)")
    .option(
      "--output <format>",
      "table or json (json prints the raw IMDS documents, token redacted)",
      choiceOption(["table", "json"] as const),
      "table",
    )
    .action(async (flags: { output: "table" | "json" }) => {
      const endpoint = endpointsFromEnv(io.env).imds;
      const client = clientSetFromEnv(io.env).imds;
      const nonce = randomBytes(12).toString("hex");
      const clientId = io.env.AZURE_CLIENT_ID?.trim() || undefined;
      const [instance, identityInfo, attested, token] = await Promise.all([
        client.instance(),
        client.identityInfo(),
        client.attestedDocument(nonce),
        client.token({ resource: ARM_RESOURCE, clientId }),
      ]);
      const redactedToken = { ...token, access_token: token.access_token ? REDACTED : token.access_token };
      if (flags.output === "json") {
        io.out(JSON.stringify({ endpoint, instance, identityInfo, attestedDocument: attested, token: redactedToken }, null, 2));
        return;
      }
      const c = instance.compute ?? {};
      const ip = instance.network?.interface?.[0]?.ipv4;
      let attestation = `${attested.encoding ?? "?"}`;
      if (attested.signature) {
        try {
          const doc = readAttestedDocument(attested.signature);
          const content = JSON.parse(doc.content) as ImdsAttestedContent;
          attestation += `, signed by ${doc.signer || "?"}, ${content.nonce === nonce ? "nonce verified" : "NONCE MISMATCH"}, vmId ${content.vmId}`;
        } catch (e) {
          attestation += `, unreadable signature (${(e as Error).message})`;
        }
      }
      const expires = Number(token.expires_on) * 1000;
      const minutes = Math.round((expires - Date.now()) / 60_000);
      io.out(
        renderKeyValues([
          [
            "Machine",
            `${c.name ?? "?"} (${[c.vmSize, c.osType, c.location, c.zone ? `zone ${c.zone}` : undefined].filter(Boolean).join(", ")})`,
          ],
          ["VM id", c.vmId],
          ["Resource", c.resourceId],
          ["Subscription", c.subscriptionId],
          ["Resource group", c.resourceGroupName],
          ["Image", [c.publisher, c.offer, c.sku, c.version].filter(Boolean).join(" / ")],
          [
            "Network",
            ip?.ipAddress?.[0]?.privateIpAddress
              ? `${ip.ipAddress[0].privateIpAddress}${ip.subnet?.[0] ? ` (subnet ${ip.subnet[0].address}/${ip.subnet[0].prefix})` : ""}`
              : undefined,
          ],
          ["Identity", `${clientId ? "user-assigned" : "system-assigned"}, client id ${token.client_id ?? "?"}`],
          ["Tenant", identityInfo.tenantId],
          [
            "ARM token",
            `for ${token.resource ?? ARM_RESOURCE}, expires ${Number.isFinite(expires) ? new Date(expires).toISOString() : "?"} (in ${minutes} min)`,
          ],
          ["Attested", attestation],
          ["IMDS", endpoint],
        ]),
      );
    });
}
