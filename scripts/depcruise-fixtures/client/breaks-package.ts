// Breaks client-package-dependencies: picomatch is a dependency of the root package only.
import picomatch from "picomatch";

export const match = picomatch("*.ts");
