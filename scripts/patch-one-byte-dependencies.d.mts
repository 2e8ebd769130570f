export const ONE_BYTE_DEPENDENCY_FILES: string[];
export function patchOneByteDependencies(modules: string): string[];
