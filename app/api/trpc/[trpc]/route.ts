import { handleTrpcRequest } from "@/server/api";

export const dynamic = "force-dynamic";

export const GET = handleTrpcRequest;
export const POST = handleTrpcRequest;
