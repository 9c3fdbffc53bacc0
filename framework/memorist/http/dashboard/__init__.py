"""The web console under ``/dashboard``: one HTML shell and its static assets, all shipped in the package.

The page is a small static app (vanilla JavaScript modules, no build step) that talks to the
server only through the public REST routes, holding the JWT pair in ``sessionStorage``. Nothing
here reads the database or the engine: what the dashboard can do, any client can do.
"""

from __future__ import annotations

from .resources import STATIC, DashboardAsset, DashboardPage, add_routes, wants_html

__all__ = ["STATIC", "DashboardAsset", "DashboardPage", "add_routes", "wants_html"]
