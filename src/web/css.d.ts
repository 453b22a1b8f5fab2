// CSS imports are bundled by Bun.build (src/api/web.ts); TypeScript only needs to know they exist.
declare module "*.css";
