# Development image: the README's install (the base distribution, no dev extras) and `memorist serve`.
#   docker build -t memorist .                         # the embedded default
#   docker build --build-arg EXTRAS=postgres -t memorist-pg .
# torch is pinned to the CPU build by constraints.txt; where the CPU wheel is not on the
# package index pip uses, pass the PyTorch CPU index: --build-arg PIP_EXTRA_INDEX_URL=<url>.
FROM python:3.11-slim

ARG EXTRAS=""
ARG PIP_EXTRA_INDEX_URL=""
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_EXTRA_INDEX_URL=${PIP_EXTRA_INDEX_URL} \
    HF_HUB_OFFLINE=1 \
    TOKENIZERS_PARALLELISM=false

WORKDIR /app
COPY . /app

# The README's install step, word for word.
RUN python3.11 -m venv .venv && .venv/bin/pip install -c constraints.txt -e .
# Optional extras (the postgres profile of compose.yaml builds with EXTRAS=postgres).
RUN if [ -n "$EXTRAS" ]; then .venv/bin/pip install -c constraints.txt -e ".[$EXTRAS]"; fi

ENV PATH=/app/.venv/bin:$PATH \
    MEMORIST_DATA_DIR=/data \
    MEMORIST_MODEL_CACHE=/data/onnx-cache
VOLUME ["/data"]
EXPOSE 8000
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s \
    CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/health', timeout=2)"
CMD ["memorist", "serve", "--host", "0.0.0.0", "--port", "8000"]
