import type { LocalService } from "./kit/local-service";
import { imdsLocal } from "./services/imds/imds-local";
import { batchAiLocal } from "./services/batchai/batchai-local";
import { sqlLocal } from "./services/sql/sql-local";
import { binaryAnalysisLocal } from "./services/binary-analysis/binary-analysis-local";
import { certificatesLocal } from "./services/certificates/local";
import { geocodingLocal } from "./services/geocoding/geocoding-local";
import { keyVaultLocal } from "./services/keyvault/keyvault-local";

/** Every seeded API's local implementation, in mount order. */
export const LOCAL_SERVICES: readonly LocalService[] = [
  imdsLocal as LocalService,
  sqlLocal as LocalService,
  batchAiLocal as LocalService,
  keyVaultLocal as LocalService,
  binaryAnalysisLocal as LocalService,
  certificatesLocal as LocalService,
  geocodingLocal as LocalService,
];
