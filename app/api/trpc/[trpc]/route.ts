import { handleTrpcRequest } from "@/server/http/trpc-endpoint";

export const dynamic = "force-dynamic";

export const GET = handleTrpcRequest;
export const POST = handleTrpcRequest;
