// ESLint: typescript-eslint's recommended rules over the TypeScript sources and tests, and the
// recommended rules over the JavaScript beside them (bin/, stacks/index.js, scripts/github/, the
// test fixtures loaded with --require, the status page's browser script, the config files), each
// with the module system and globals it runs with.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

// Node's everyday globals, listed here rather than taken from the `globals` package (one more
// dependency for a handful of names; add one here when a script needs it).
const NODE_GLOBALS = {
  process: "readonly",
  console: "readonly",
  Buffer: "readonly",
  URL: "readonly",
  setTimeout: "readonly",
  clearTimeout: "readonly",
};
// What CommonJS adds (ESLint's `commonjs` source type declares require, module and exports).
const COMMONJS_GLOBALS = { __dirname: "readonly", __filename: "readonly" };

export default tseslint.config(
  // test/fixtures/layering holds deliberate violations for the dependency-cruiser tests.
  { ignores: ["dist/**", "node_modules/**", "specs/**", "test/fixtures/layering/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      // `_name` marks a parameter or binding kept for its position or to drop a property.
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", destructuredArrayIgnorePattern: "^_" },
      ],
    },
  },
  {
    // No function in src/ over 100 lines (issue 30): a longer one is several ideas that want names.
    // Every line counts, blank lines and comments too, as the issue measured them (219, 200, …):
    // the limit is about what a reader scrolls through, and 100 leaves room for why-comments.
    files: ["src/**/*.ts"],
    rules: { "max-lines-per-function": ["error", { max: 100, skipBlankLines: false, skipComments: false, IIFEs: true }] },
  },
  {
    // Tests drive compiled modules, gRPC messages and Pulumi mocks whose types are loose by nature.
    files: ["test/**/*.ts"],
    rules: { "@typescript-eslint/no-require-imports": "off", "@typescript-eslint/no-explicit-any": "off" },
  },
  {
    // package.json says "type": "commonjs": .js and .cjs files load with require.
    files: ["**/*.js", "**/*.cjs"],
    ignores: ["src/interfaces/watch/page/assets/**"],
    languageOptions: { sourceType: "commonjs", globals: { ...NODE_GLOBALS, ...COMMONJS_GLOBALS } },
    rules: { "@typescript-eslint/no-require-imports": "off" },
  },
  {
    // The status page's script runs in the browser, as a classic script (the watcher serves it).
    files: ["src/interfaces/watch/page/assets/**/*.js"],
    languageOptions: {
      sourceType: "script",
      globals: {
        window: "readonly",
        document: "readonly",
        fetch: "readonly",
        DOMParser: "readonly",
        EventSource: "readonly",
        setTimeout: "readonly",
        clearTimeout: "readonly",
      },
    },
  },
  {
    files: ["**/*.mjs"],
    languageOptions: { sourceType: "module", globals: NODE_GLOBALS },
  },
);
