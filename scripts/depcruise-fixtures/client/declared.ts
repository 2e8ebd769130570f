// Allowed: zod is a dependency of this package (client/package.json).
import { z } from "zod";

export const name = z.string();
