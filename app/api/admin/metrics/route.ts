import { handleMetricsRequest, handleRestRequest, traced } from "@/server/api";

export const dynamic = "force-dynamic";

export const GET = traced("/api/admin/metrics", handleMetricsRequest);
export const HEAD = handleRestRequest;
export const POST = handleRestRequest;
export const PUT = handleRestRequest;
export const PATCH = handleRestRequest;
export const DELETE = handleRestRequest;
