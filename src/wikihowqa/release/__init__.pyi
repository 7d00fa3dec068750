from .hub_fetch import HubFiles as HubFiles
from .hub_fetch import fetch_qa as fetch_qa
from .importer import Release as Release
from .importer import import_hub as import_hub
from .importer import import_release as import_release
from .importer import load_release as load_release
