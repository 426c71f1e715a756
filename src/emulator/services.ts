import type { LocalService } from "./kit/local-service";
import { imdsLocal } from "./services/imds/imds-local";
import { batchAiLocal } from "./services/batchai/batchai-local";
import { sqlLocal } from "./services/sql/sql-local";
import { binaryAnalysisLocal } from "./services/binary-analysis/binary-analysis-local";
import { certificatesLocal } from "./services/certificates/local";
import { geocodingLocal } from "./services/geocoding/geocoding-local";
import { keyVaultLocal } from "./services/keyvault/keyvault-local";
import { authorizationLocal } from "./services/authorization/authorization-local";

const SERVICES: LocalService[] = [
  imdsLocal as LocalService,
  sqlLocal as LocalService,
  batchAiLocal as LocalService,
  keyVaultLocal as LocalService,
  authorizationLocal as LocalService,
  binaryAnalysisLocal as LocalService,
  certificatesLocal as LocalService,
  geocodingLocal as LocalService,
];

/**
 * Every seeded API's local implementation, in mount order: the built-in ones, then those
 * registered at run time (`registerLocalService`). The emulator, its seed schema and the
 * embedded emulator read this list when they start, so a registration made before (a module
 * loaded with `node --require`) is served like a built-in one.
 */
export const LOCAL_SERVICES: readonly LocalService[] = SERVICES;

/** Sections of the seed file that are the emulator's own, never a service's. */
const RESERVED = new Set(["emulator", "faults", "eventGrid"]);

/**
 * Adds a local implementation at run time (a route of an organisation's own, or a test's): its
 * routes are mounted and its seed section validated when the emulator starts. Its name is its seed
 * section's key and must be new.
 */
export function registerLocalService<S, Seed>(service: LocalService<S, Seed>): void {
  if (!/^[a-z][A-Za-z0-9]*$/.test(service.name))
    throw new Error(`local service name "${service.name}" must be camelCase (it is a seed section)`);
  if (RESERVED.has(service.name) || SERVICES.some((s) => s.name === service.name))
    throw new Error(`a local service or seed section named "${service.name}" already exists`);
  SERVICES.push(service as LocalService);
}
