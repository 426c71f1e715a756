import type { LocalService } from "./local-service";
import { imdsLocal } from "../services/imds/local";
import { batchAiLocal } from "../services/batchai/local";
import { sqlLocal } from "../services/sql/local";
import { certificatesLocal } from "./services/certificates/local";

/** Every seeded API's local implementation, in mount order. */
export const LOCAL_SERVICES: readonly LocalService[] = [
  imdsLocal as LocalService,
  sqlLocal as LocalService,
  batchAiLocal as LocalService,
  certificatesLocal as LocalService,
];
