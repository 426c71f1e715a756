/** The token scope of Azure Resource Manager (what every ARM client asks its credential for). */
export const ARM_SCOPE = "https://management.azure.com/.default";
