import type { Command } from "commander";
import { geocodeAddress } from "../../../usecases/geocode";
import type { Address } from "../../../services/geocoding/types";
import { ERROR_CODES } from "../../../platform/errors/error-codes";
import { errorLine, UsageError } from "../cli-error";
import type { CommandIO } from "../command-io";
import { choiceOption, intOption } from "../option-parsers";
import { renderKeyValues } from "../render/key-values";
import { renderTextTable } from "../render/text-table";
import { serviceClients } from "../service-clients";

interface GeocodeFlags {
  country?: string;
  output: "table" | "json";
  max: number;
}

export function registerGeocode(program: Command, io: CommandIO): void {
  program
    .command("geocode")
    .argument("<address>", 'the address, e.g. "Dam 1, 1012 JS Amsterdam"')
    .description(
      "geocode an address with the geocoding service (STACKWARDEN_GEOCODING_ENDPOINT, STACKWARDEN_GEOCODING_API_KEY): its parts, position and country (exit 0, 1 no match or error)",
    )
    .option("--country <code>", "ISO 3166-1 alpha-2 code of the country the address is in, when the address does not say")
    .option("--output <format>", "table or json", choiceOption(["table", "json"] as const), "table")
    .option("--max <n>", "matches to show (1-10)", intOption(1, 10), 5)
    .action(async (address: string, flags: GeocodeFlags) => {
      if (!address.trim()) throw new UsageError("the address is empty");
      if (flags.country !== undefined && !/^[A-Za-z]{2}$/.test(flags.country))
        throw new UsageError(`--country: expected an ISO 3166-1 alpha-2 code such as NL, got "${flags.country}"`);
      const res = await geocodeAddress(await serviceClients(io), address, { country: flags.country, max: flags.max });
      const results = res.result ?? [];
      if (flags.output === "json") {
        io.out(
          JSON.stringify(
            { address, numFound: results.length, message: res.message, parsedAddress: res.parsedAddress, result: results },
            null,
            2,
          ),
        );
      } else if (results.length > 0) {
        const best = results[0];
        io.out(
          renderKeyValues([
            ["Address", address],
            ["Match", `${describe(best)} (${best.geocodinglevel ?? "?"} level)`],
            ["Country", best.countrycode ? `${best.countrycode}${best.country ? ` (${best.country})` : ""}` : "none"],
            ["Position", position(best)],
            ["Parsed", res.parsedAddress ? describeParsed(res.parsedAddress) : undefined],
          ]),
        );
        if (results.length > 1) {
          io.out("\nOther matches:");
          io.out(
            renderTextTable(
              ["MATCH", "LEVEL", "COUNTRY", "POSITION"],
              results.slice(1).map((r) => [describe(r), r.geocodinglevel ?? "", r.countrycode ?? "", position(r)]),
            ),
          );
        }
      }
      if (results.length === 0) {
        // The service's message often names the address itself ("no place matched …"): then it adds nothing.
        const said = res.message && !res.message.includes(address) ? `: ${res.message}` : "";
        io.err(errorLine("stackwarden geocode", "SW_RESOURCE_NOT_FOUND", `no place found for "${address}"${said}`));
        io.exitCode = ERROR_CODES.SW_RESOURCE_NOT_FOUND.exit;
      }
    });
}

function describe(a: Address): string {
  const street = a.streetName ? [a.streetName, a.houseNumber].filter(Boolean).join(" ") : undefined;
  return [street, a.zipCode, a.city ?? a.citySubdivision ?? a.name].filter(Boolean).join(", ") || "(unnamed)";
}

function position(a: Address): string {
  return typeof a.lat === "number" && typeof a.lng === "number" ? `${a.lat.toFixed(5)}, ${a.lng.toFixed(5)}` : "";
}

function describeParsed(p: Address): string {
  const parts: [string, unknown][] = [
    ["house number", p.houseNumber],
    ["street", p.streetName],
    ["district", p.quarter],
    ["ward", p.ward],
    ["postcode", p.zipCode],
    ["city", p.city],
    ["state", p.state],
    ["country", p.countrycode],
  ];
  return parts
    .filter(([, v]) => typeof v === "string" && v)
    .map(([k, v]) => `${k} ${String(v)}`)
    .join(" · ");
}
