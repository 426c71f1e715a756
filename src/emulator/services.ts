import type { LocalService } from "./local-service";
import { imdsLocal } from "../services/imds/local";

/** Every seeded API's local implementation, in mount order. */
export const LOCAL_SERVICES: readonly LocalService[] = [imdsLocal as LocalService];
