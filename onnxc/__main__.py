import sys

from onnxc.tools.cli import main

sys.exit(main())
