import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  serverExternalPackages: ["@electric-sql/pglite", "pglite-prisma-adapter", "@prisma/client", "isomorphic-git", "pg"],
  poweredByHeader: false,
};

export default nextConfig;
