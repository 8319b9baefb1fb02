/**
 * `pnpm secrets [file]`: writes docker compose's `.env` (default: the repository root's) with random values for
 * every secret it lacks, keeping the ones it has (a new API_KEY_ENCRYPTION_KEY would make stored keys unreadable).
 * docker-compose.yml refuses to start without them (`${VAR:?…}`).
 */
import path from "node:path";
import { ensureComposeEnv } from "./secrets";

const root = path.resolve(__dirname, "../../..");
const file = path.resolve(process.env.INIT_CWD ?? root, process.argv[2] ?? path.join(root, ".env"));
const { generated, kept } = ensureComposeEnv(file);
process.stdout.write(
  `${path.relative(process.cwd(), file) || file} (mode 0600): ` +
    `${generated.length ? `generated ${generated.join(", ")}` : "nothing generated"}` +
    `${kept.length ? `; kept ${kept.join(", ")}` : ""}\n`,
);
