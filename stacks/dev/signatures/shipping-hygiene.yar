/*
 * Sample hygiene rules: artifacts must not carry markers that say they were never meant to ship.
 * The markers are invented for stackwarden's samples.
 */

rule stackwarden_do_not_ship : hygiene
{
  meta:
    description = "A build marked DO-NOT-SHIP by its author"
    author = "stackwarden"
    severity = "medium"
  strings:
    $a = "STACKWARDEN-DO-NOT-SHIP" nocase ascii wide
  condition:
    $a
}

rule stackwarden_debug_backdoor_flag : hygiene
{
  meta:
    description = "A made-up debug switch that must never reach a shipped job script or tool"
    author = "stackwarden"
    severity = "medium"
  strings:
    $flag = /--stackwarden-debug-backdoor(=[a-z0-9]+)?/
  condition:
    $flag
}
