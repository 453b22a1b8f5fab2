// `txray idl add`: validate an IDL file and store it for the decoder (wired to src/chain/idl).
export function saveIdlFile(_dataDir: string, _program: string, _file: string): string {
  throw new Error("idl add is not available yet");
}
