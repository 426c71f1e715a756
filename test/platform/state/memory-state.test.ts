import { openMemoryState } from "../../../src/platform/state/memory/memory-state";
import { stateContract } from "./state-contract";

/** The state contract over memory (npm start's embedded run). */
stateContract("memory", () => openMemoryState("test"));
